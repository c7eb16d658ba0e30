/// Reads the file name a server proposes in a Content-Disposition header (R17).
///
/// `filename*` (RFC 8187, UTF-8 or ISO-8859-1) is preferred over `filename`,
/// as browsers do. The name is returned raw — "../../etc/passwd" stays as
/// sent — because `FileName.sanitize` is what makes any name safe, and doing
/// it once there keeps one rule for every source.
public enum ContentDisposition {
    /// The proposed file name, unsanitised; nil when the header names none.
    public static func filename(from headerValue: String) -> String? {
        let parameters = parse(headerValue)
        if let extended = parameters.first(where: { $0.name == "filename*" }),
           let decoded = decodeExtendedValue(extended.value), !decoded.isEmpty {
            return decoded
        }
        if let plain = parameters.first(where: { $0.name == "filename" }), !plain.value.isEmpty {
            return plain.value
        }
        return nil
    }

    /// Splits `type; name=value; name="quoted"` into lower-cased names and unquoted values.
    static func parse(_ header: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        let chars = Array(header)
        var i = 0
        func skipBlanks() { while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 } }

        while i < chars.count {
            skipBlanks()
            var name = ""
            while i < chars.count, chars[i] != "=", chars[i] != ";" {
                name.append(chars[i])
                i += 1
            }
            name = name.trimmingSpacesAndTabs().lowercased()
            guard i < chars.count, chars[i] == "=" else {
                i += 1  // a bare token such as the disposition type, or an empty segment
                continue
            }
            i += 1
            skipBlanks()
            var value = ""
            if i < chars.count, chars[i] == "\"" {
                i += 1
                while i < chars.count, chars[i] != "\"" {
                    if chars[i] == "\\", i + 1 < chars.count { i += 1 }
                    value.append(chars[i])
                    i += 1
                }
                i += 1  // closing quote
                while i < chars.count, chars[i] != ";" { i += 1 }
            } else {
                while i < chars.count, chars[i] != ";" {
                    value.append(chars[i])
                    i += 1
                }
                value = value.trimmingSpacesAndTabs()
            }
            i += 1  // ";"
            if !name.isEmpty {
                result.append((name, value))
            }
        }
        return result
    }

    /// `charset'language'percent-encoded` → text, for UTF-8 and ISO-8859-1; nil otherwise.
    static func decodeExtendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        let bytes = FileName.percentDecoded(pieces[2])
        switch pieces[0].lowercased() {
        case "utf-8", "utf8":
            guard UTF8Validation.isValid(bytes) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        case "iso-8859-1", "latin1", "iso_8859-1":
            var scalars = String.UnicodeScalarView()
            for b in bytes { scalars.append(Unicode.Scalar(b)) }
            return String(scalars)
        default:
            return nil
        }
    }
}
