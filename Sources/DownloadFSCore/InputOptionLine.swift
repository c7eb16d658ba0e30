/// Applies one `key=value` option line of an aria2 input file to a URL's options (R10, R11).
///
/// Kept apart from the line splitting in `InputParser` so each option's
/// grammar and its rejection sentence sit in one place. Later values of
/// `out`, `checksum`, `max-download-limit` and `split` replace earlier ones, as
/// in aria2; `header` accumulates.
enum InputOptionLine {
    static let knownKeys = ["out", "header", "checksum", "max-download-limit", "split"]

    /// Applies `text` (leading blanks already removed); returns the rejection reason, or nil.
    static func apply(_ text: String, to options: inout TaskOptions) -> String? {
        // By bytes, not Characters: cheaper per line, and "=" is split on even before a combining mark.
        guard let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) else {
            return "malformed option \"\(text)\" (expected key=value)"
        }
        let key = String(text[..<equals])
        let value = String(text[text.utf8.index(after: equals)...])
        switch key {
        case "out":
            guard !value.isEmpty else { return "malformed option out: empty file name" }
            options.out = value
        case "header":
            guard let header = normalizedHeader(value) else {
                return "malformed option header=\(value) (expected header=Name: value)"
            }
            options.headers.append(header)
        case "checksum":
            switch Checksum.parse(value) {
            case .success(let checksum): options.checksum = checksum
            case .failure(let error): return "malformed option checksum: \(error.reason)"
            }
        case "max-download-limit":
            do throws(ByteRateError) {
                options.maxDownloadLimit = try ByteRate.read(value)
            } catch {
                switch error {
                case .unreadable:
                    return "malformed option max-download-limit=\(value) (expected a rate like 500K, 2M or 1.5MiB)"
                case .belowSmallest, .bits:
                    return "malformed option max-download-limit: \(error.message)"
                }
            }
        case "split":
            guard let n = TaskOptions.splitCount(value) else {
                let range = TaskOptions.splitRange
                return "malformed option split=\(value) (expected a whole number from \(range.lowerBound) to \(range.upperBound))"
            }
            options.split = n
        default:
            if key.isEmpty {
                return "malformed option \"\(text)\" (expected key=value)"
            }
            return "unknown option \"\(key)\" (known: \(knownKeys.joined(separator: ", ")))"
        }
        return nil
    }

    /// `Name: value` with an HTTP token name, rewritten as `Name: value` with the value trimmed; nil if malformed.
    static func normalizedHeader(_ s: String) -> String? {
        guard let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = s[..<colon]
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { return nil }
        let value = trimmingBlanks(s.unicodeScalars[s.unicodeScalars.index(after: colon)...])
        return "\(name): \(String(Substring(value)))"
    }

    /// `s` without leading and trailing spaces and tabs, scalar by scalar
    /// (`trimmingSpacesAndTabs` copies the scalars into an array: too slow for
    /// a line of 200,000 header lines, R11).
    private static func trimmingBlanks(_ s: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        let isBlank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = s.firstIndex(where: { !isBlank($0) }),
              let last = s.lastIndex(where: { !isBlank($0) }) else { return s[s.startIndex..<s.startIndex] }
        return s[first...last]
    }

    /// RFC 9110 `tchar`, as a byte (a non-ASCII byte is never one).
    static func isTokenByte(_ b: UInt8) -> Bool {
        b < 0x80 && isTokenCharacter(Unicode.Scalar(b))
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
        guard c.isASCII else { return false }
        if ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) { return true }
        return "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
    }
}
