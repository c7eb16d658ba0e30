/// A call's parameters once the token is taken off, read by position with
/// aria2c's sentences ("The parameter at 1 has wrong type."), answered as
/// -32602 (R71: wrong parameters).
struct Aria2Params {
    let values: [JSONValue]

    init(_ values: [JSONValue]) {
        self.values = values
    }

    private func missing(_ index: Int) -> Aria2Error {
        .invalidParams("The parameter at \(index) is required but missing.")
    }

    private func wrongType(_ index: Int, _ expected: String) -> Aria2Error {
        .invalidParams("The parameter at \(index) has wrong type (expected \(expected)).")
    }

    /// The value at `index`, nil when absent or `null`.
    func optional(_ index: Int) -> JSONValue? {
        guard index < values.count, values[index] != .null else { return nil }
        return values[index]
    }

    func string(_ index: Int) throws(Aria2Error) -> String {
        guard let value = optional(index) else { throw missing(index) }
        guard let string = value.stringValue else { throw wrongType(index, "a string") }
        return string
    }

    func gid(_ index: Int) throws(Aria2Error) -> Int64 {
        try Aria2GID.id(try string(index))
    }

    func integer(_ index: Int) throws(Aria2Error) -> Int64 {
        guard let value = optional(index) else { throw missing(index) }
        guard let integer = value.integerValue else { throw wrongType(index, "an integer") }
        return integer
    }

    /// A count (`tellWaiting`'s and `tellStopped`'s `num`): never below 0.
    func count(_ index: Int) throws(Aria2Error) -> Int64 {
        let value = try integer(index)
        guard value >= 0 else {
            throw .invalidParams("The integer parameter at \(index) has invalid value: the value must be greater than or equal to 0.")
        }
        return value
    }

    func optionalInteger(_ index: Int) throws(Aria2Error) -> Int64? {
        guard optional(index) != nil else { return nil }
        return try integer(index)
    }

    func strings(_ index: Int) throws(Aria2Error) -> [String] {
        guard let value = optional(index) else { throw missing(index) }
        return try strings(value, index)
    }

    /// An optional list of strings (the keys of `tellStatus`): nil when absent.
    func optionalStrings(_ index: Int) throws(Aria2Error) -> [String]? {
        guard let value = optional(index) else { return nil }
        return try strings(value, index)
    }

    private func strings(_ value: JSONValue, _ index: Int) throws(Aria2Error) -> [String] {
        guard let array = value.arrayValue else { throw wrongType(index, "a list of strings") }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue else { throw wrongType(index, "a list of strings") }
            strings.append(string)
        }
        return strings
    }

    /// An options struct that must be there (`changeOption`, `changeGlobalOption`).
    func requiredOptions(_ index: Int) throws(Aria2Error) -> [String: [String]] {
        guard let options = try options(index) else { throw missing(index) }
        return options
    }

    /// An options struct: every value a string (a number or a boolean is
    /// taken as its text, as clients send `"split": 4`), `header` also a
    /// list of strings. Nil when absent.
    func options(_ index: Int) throws(Aria2Error) -> [String: [String]]? {
        guard let value = optional(index) else { return nil }
        guard let object = value.objectValue else { throw wrongType(index, "a struct of options") }
        var options: [String: [String]] = [:]
        for (key, member) in object {
            switch member {
            case .string(let text): options[key] = [text]
            case .integer(let number): options[key] = [String(number)]
            case .bool(let flag): options[key] = [flag ? "true" : "false"]
            case .array(let elements):
                let texts = elements.compactMap(\.stringValue)
                guard texts.count == elements.count else {
                    throw .invalidParams("The option \(key) has wrong type (expected a string or a list of strings).")
                }
                options[key] = texts
            default:
                throw .invalidParams("The option \(key) has wrong type (expected a string).")
            }
        }
        return options
    }
}
