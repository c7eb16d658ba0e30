/// Applies one `key=value` option line of an aria2 input file to a URL's options (R10, R11).
///
/// Kept apart from the line splitting in `InputParser` so each option's
/// grammar and its rejection sentence sit in one place. Later values of
/// `out`, `checksum` and `max-download-limit` replace earlier ones, as in aria2;
/// `header` accumulates.
enum InputOptionLine {
    static let knownKeys = ["out", "header", "checksum", "max-download-limit"]

    /// Applies `text` (leading blanks already removed); returns the rejection reason, or nil.
    static func apply(_ text: String, to options: inout TaskOptions) -> String? {
        guard let equals = text.firstIndex(of: "=") else {
            return "malformed option \"\(text)\" (expected key=value)"
        }
        let key = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
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
            guard let rate = ByteRate.parse(value) else {
                return "malformed option max-download-limit=\(value) (expected a rate like 500K, 2M or 1.5MiB)"
            }
            options.maxDownloadLimit = rate
        default:
            if key.isEmpty {
                return "malformed option \"\(text)\" (expected key=value)"
            }
            return "unknown option \"\(key)\" (known: out, header, checksum, max-download-limit)"
        }
        return nil
    }

    /// `Name: value` with an HTTP token name, rewritten as `Name: value` with the value trimmed; nil if malformed.
    static func normalizedHeader(_ s: String) -> String? {
        guard let colon = s.firstIndex(of: ":") else { return nil }
        let name = s[..<colon]
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(isTokenCharacter) else { return nil }
        let value = s[s.index(after: colon)...].trimmingSpacesAndTabs()
        return "\(name): \(value)"
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
        guard c.isASCII else { return false }
        if ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) { return true }
        return "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
    }
}
