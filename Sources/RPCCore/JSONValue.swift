import Foundation

/// A JSON value as the aria2 door reads and writes it (R70–R72).
///
/// Parsing goes through Foundation's `JSONSerialization`; writing is done
/// here so replies come out the same on every platform: object keys sorted
/// (as aria2c's `std::map` writes them), integers without a fraction, no
/// escaping beyond what JSON needs. Numbers in aria2's replies are decimal
/// strings; `.integer` is for what a request sent (ids, offsets) and the
/// few integer results aria2c gives (`changePosition`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value `bytes` hold, or nil when they are not JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            return nil
        }
        return from(any)
    }

    /// `JSONSerialization`'s objects as values. Booleans and numbers both
    /// arrive as `NSNumber` on Linux; its type code tells them apart.
    static func from(_ any: Any) -> JSONValue? {
        switch any {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f", "Q": return .number(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        case let array as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(array.count)
            for element in array {
                guard let value = from(element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let dictionary as [String: Any]:
            var values: [String: JSONValue] = [:]
            for (key, element) in dictionary {
                guard let value = from(element) else { return nil }
                values[key] = value
            }
            return .object(values)
        default:
            return nil
        }
    }

    /// The value as JSON text, UTF-8.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out)
        return out
    }

    /// Written as bytes, not as a `String`: a reply is written at every call.
    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .integer(let value): out += String(value).utf8
        case .number(let value):
            if value.isFinite, value.rounded() == value, abs(value) < 1e15 {
                out += String(Int64(value)).utf8
            } else {
                out += (value.isFinite ? "\(value)" : "null").utf8
            }
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let values):
            out.append(UInt8(ascii: "{"))
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                values[key]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string's UTF-8 with what JSON needs escaped: the quote, the
    /// backslash and control bytes (multi-byte characters are ≥ 0x80 and go
    /// as they are).
    private static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                out += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The string a string value holds; nil for any other value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The array an array value holds; nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// The members of an object value; nil for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let values) = self { return values }
        return nil
    }

    /// A whole number, from an integer or a number without a fraction.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .number(let value) where value.rounded() == value && abs(value) < 9e18: return Int64(value)
        default: return nil
        }
    }
}
