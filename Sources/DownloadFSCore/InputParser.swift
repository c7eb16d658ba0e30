/// Streaming parser for what users write to `queue/new` (R10, R11), in aria2's input-file form.
///
/// Each non-blank line not starting with `#` is a URL; the lines right after
/// it that start with a space or tab are its `key=value` options. Blank and
/// comment lines are skipped and do not end a URL's options. Input arrives in
/// arbitrary writes, so the parser keeps the partial last line and the URL
/// whose options may still continue; a URL is handed out once its options
/// have ended — at the next URL line (`feed`), when ids are read back
/// (`takePending`) or at close (`finish`).
///
/// Invariant: a call that throws leaves the parser exactly as it was, so a
/// refused write adds nothing and the next write carries on (R11).
public struct InputParser: Sendable {
    /// Longest accepted line in bytes, not counting its line ending (R11).
    public static let maxLineBytes = 8192

    private struct PendingURL: Sendable {
        var url: String
        var options: TaskOptions
        var line: Int
        var entry: InputEntry { InputEntry(url: url, options: options, line: line) }
    }

    /// Bytes of the line not yet terminated by "\n".
    private var partialLine: [UInt8] = []
    /// Complete lines seen so far, for 1-based line numbers.
    private var linesConsumed = 0
    /// The last URL, whose option lines may still follow.
    private var pending: PendingURL?

    public init() {}

    /// True when nothing is buffered: no partial line and no URL waiting for its options to end.
    public var isIdle: Bool { partialLine.isEmpty && pending == nil }

    /// Feeds the bytes of one write. Complete lines are parsed; a partial last line is kept.
    ///
    /// Returns the entries whose options have ended (a later URL line started).
    /// If any line in this write is rejected, throws and the parser is exactly
    /// as it was before the call: the whole write is refused (R11).
    public mutating func feed(_ bytes: [UInt8]) throws(InputError) -> [InputEntry] {
        var next = self
        let entries = try next.consume(bytes)
        self = next
        return entries
    }

    /// Ends the pending URL's options (ids are being read back, R12) and returns it.
    ///
    /// A partial unterminated line stays buffered.
    public mutating func takePending() -> [InputEntry] {
        guard let pending else { return [] }
        self.pending = nil
        return [pending.entry]
    }

    /// At close: the unterminated final line is taken as complete, then everything pending is returned.
    ///
    /// Throws for a bad final line; the parser is then unchanged, so the caller
    /// may still `takePending()` the URLs accepted before it.
    public mutating func finish() throws(InputError) -> [InputEntry] {
        var next = self
        var entries: [InputEntry] = []
        if !next.partialLine.isEmpty {
            let line = next.partialLine
            next.partialLine = []
            if let ended = try next.parseLine(line) {
                entries.append(ended)
            }
        }
        entries += next.takePending()
        self = next
        return entries
    }

    /// Checks one URL the way a URL line is checked; returns why it is rejected, or nil.
    public static func validateURL(_ s: String) -> String? {
        guard let colon = s.firstIndex(of: ":"),
              URLParts.isValidScheme(String(s[..<colon])),
              !(s[s.index(after: colon)...].first?.isNumber ?? false) else {
            return "no scheme (expected a URL like https://host/path)"
        }
        let scheme = String(s[..<colon])
        guard ["http", "https", "ftp", "ftps"].contains(scheme.lowercased()) else {
            return "unsupported scheme \"\(scheme)\" (use http, https, ftp or ftps)"
        }
        guard let parts = URLParts.split(s) else {
            return "malformed URL (expected \(scheme)://host/path)"
        }
        if let reason = hostProblem(parts.host) {
            return reason
        }
        if let port = parts.port {
            guard !port.isEmpty, port.utf8.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), (1...65535).contains(number) else {
                return "invalid port \"\(port)\" (must be a number from 1 to 65535)"
            }
        }
        return nil
    }

    private static func hostProblem(_ host: String) -> String? {
        if host.isEmpty {
            return "no host in URL"
        }
        if host.hasPrefix("[") {
            let inner = host.dropFirst().dropLast()
            guard host.hasSuffix("]"), inner.contains(":"),
                  inner.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." || $0 == "%" })
            else {
                return "invalid IPv6 host \"\(host)\""
            }
            return nil
        }
        let allowedPunctuation = "-._~%!$&'()*+,;=".unicodeScalars
        for c in host.unicodeScalars {
            if c.isASCII {
                let ok = ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
                    || allowedPunctuation.contains(c)
                if !ok { return "invalid character \"\(c)\" in host \"\(host)\"" }
            }
        }
        return nil
    }

    // MARK: - Lines

    private mutating func consume(_ bytes: [UInt8]) throws(InputError) -> [InputEntry] {
        var entries: [InputEntry] = []
        var start = 0
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                try checkLength(partialLine.count + (i - start), lastByte: i > start ? bytes[i - 1] : partialLine.last)
                partialLine.append(contentsOf: bytes[start..<i])
                let line = partialLine
                partialLine.removeAll(keepingCapacity: true)
                if let ended = try parseLine(line) {
                    entries.append(ended)
                }
                start = i + 1
            }
            i += 1
        }
        if start < bytes.count {
            // A partial line that can no longer fit is refused now, not after unbounded buffering.
            let length = partialLine.count + (bytes.count - start)
            if length > InputParser.maxLineBytes + 1
                || (length == InputParser.maxLineBytes + 1 && bytes[bytes.count - 1] != 0x0D) {
                throw InputError(line: linesConsumed + 1, reason: InputParser.tooLongReason(length))
            }
            partialLine.append(contentsOf: bytes[start...])
        }
        return entries
    }

    /// Refuses a completed line longer than allowed (a final "\r" does not count).
    private func checkLength(_ length: Int, lastByte: UInt8?) throws(InputError) {
        let content = lastByte == 0x0D ? length - 1 : length
        if content > InputParser.maxLineBytes {
            throw InputError(line: linesConsumed + 1, reason: InputParser.tooLongReason(content))
        }
    }

    private static func tooLongReason(_ length: Int) -> String {
        "line is longer than 8 KiB (\(length) bytes, at most \(maxLineBytes))"
    }

    /// Parses one complete line; returns the previous URL when this line starts a new one.
    private mutating func parseLine(_ raw: [UInt8]) throws(InputError) -> InputEntry? {
        linesConsumed += 1
        let number = linesConsumed
        var bytes = raw
        if bytes.last == 0x0D { bytes.removeLast() }
        if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        func reject(_ reason: String) -> InputError { InputError(line: number, reason: reason) }

        guard bytes.count <= InputParser.maxLineBytes else {
            throw reject(InputParser.tooLongReason(bytes.count))
        }
        guard UTF8Validation.isValid(bytes) else {
            throw reject("invalid UTF-8")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let isBlank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }

        guard let first = text.unicodeScalars.first(where: { !isBlank($0) }) else {
            return nil  // blank line: skipped, does not end options
        }
        if first == "#" {
            if let c = InputParser.firstControlCharacter(text, allowingTab: true) { throw reject(c) }
            return nil
        }
        if let lead = text.unicodeScalars.first, isBlank(lead) {
            let content = String(text.unicodeScalars.drop(while: isBlank))
            if let c = InputParser.firstControlCharacter(content, allowingTab: false) { throw reject(c) }
            guard var current = pending else {
                throw reject("option line without a URL before it")
            }
            if let reason = InputOptionLine.apply(content, to: &current.options) {
                throw reject(reason)
            }
            pending = current
            return nil
        }

        let url = text.trimmingSpacesAndTabs()
        if url.unicodeScalars.contains(where: isBlank) {
            throw reject("several URLs on one line (mirrors) are not supported; put each on its own line")
        }
        if let c = InputParser.firstControlCharacter(url, allowingTab: false) { throw reject(c) }
        if let reason = InputParser.validateURL(url) { throw reject(reason) }
        let ended = pending?.entry
        pending = PendingURL(url: url, options: TaskOptions(), line: number)
        return ended
    }

    /// The rejection reason for the first C0, DEL or C1 control character in `s`, if any.
    private static func firstControlCharacter(_ s: String, allowingTab: Bool) -> String? {
        for c in s.unicodeScalars {
            if allowingTab && c == "\t" { continue }
            if c.value < 0x20 || (0x7F...0x9F).contains(c.value) {
                let hex = String(c.value, radix: 16, uppercase: true)
                return "control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex) in line"
            }
        }
        return nil
    }
}
