/// Streaming parser for what users write to `queue/new` (R10, R11), in aria2's input-file form.
///
/// Each non-blank line not starting with `#` is a URL, or several separated
/// by TABs: mirrors of one file (R19); the lines right after it that start
/// with a space or tab are its `key=value` options. Blank and
/// comment lines are skipped and do not end a URL's options. Input arrives in
/// arbitrary writes, so the parser keeps the partial last line and the URL
/// whose options may still continue; a URL is handed out once its options
/// have ended — at the next URL line (`feed`), when ids are read back
/// (`takePending`) or at close (`finish`).
///
/// Invariant: a call that throws leaves the parser exactly as it was, so a
/// refused write adds nothing and the next write carries on (R11) — with one
/// exception: when the refused line is an option line of the URL that was
/// pending before the call, that URL is refused with it and dropped, since
/// it is never to be added without the options the user gave (R11); and
/// `undoLast()` puts it back as it was before the last successful `feed` or
/// `finish`, for a caller that could not keep what that call returned.
///
/// Parsing takes time linear in the input, whatever the write sizes (R11):
/// the state is changed in place and a refusal is undone from an `UndoMark`
/// (lengths to cut back to and a few small values), never by copying the
/// parser — the pending URL's options may hold hundreds of thousands of
/// `header=` lines, and copying them per line or per write was quadratic.
public struct InputParser: Sendable {
    /// Longest accepted line in bytes, not counting its line ending (R11).
    public static let maxLineBytes = 8192

    private struct PendingURL: Sendable {
        var url: String
        var mirrors: [String]
        var options: TaskOptions
        var line: Int
        var entry: InputEntry { InputEntry(url: url, mirrors: mirrors, options: options, line: line) }
    }

    /// What one call changed, enough to put the parser back as it was before it.
    ///
    /// It holds no reference to storage the call goes on mutating (the
    /// partial line while it is appended to, the pending URL's headers while
    /// option lines are added), so keeping it never forces a copy.
    private struct UndoMark: Sendable {
        /// The partial line's length before the call, when the call only appended to it.
        var partialCount: Int
        /// The partial line as it was, once the call completed it and started a new one.
        var replacedPartial: [UInt8]?
        var linesConsumed: Int
        /// Line number of the URL pending before the call; nil when there was none.
        var pendingLine: Int?
        /// That URL's options before the call, without its headers (they are cut back to `headerCount`).
        var pendingOptions: TaskOptions
        var headerCount: Int
        /// That URL, once the call ended its options and handed it out.
        var endedPending: PendingURL?
        /// The call was refused for an option line of that URL: it goes too.
        var refusedPending = false
    }

    /// Bytes of the line not yet terminated by "\n".
    private var partialLine: [UInt8] = []
    /// Complete lines seen so far, for 1-based line numbers.
    private var linesConsumed = 0
    /// The last URL, whose option lines may still follow.
    private var pending: PendingURL?
    /// How to undo the last successful `feed` or `finish` (`undoLast`).
    private var lastCall: UndoMark?

    /// Reads the files option lines name (`load-cookies=`), and tells the time.
    private let context: InputContext

    public init(context: InputContext = .noFiles) {
        self.context = context
    }

    /// True when nothing is buffered: no partial line and no URL waiting for its options to end.
    public var isIdle: Bool { partialLine.isEmpty && pending == nil }

    /// Everything that shapes what the parser hands out next, so tests can
    /// check that a refused or undone call left it exactly as it was.
    var state: (partialLine: [UInt8], linesConsumed: Int, pending: InputEntry?) {
        (partialLine, linesConsumed, pending?.entry)
    }

    /// Feeds the bytes of one write. Complete lines are parsed; a partial last line is kept.
    ///
    /// Returns the entries whose options have ended (a later URL line started).
    /// If any line in this write is rejected, throws and the parser is exactly
    /// as it was before the call: the whole write is refused (R11).
    public mutating func feed(_ bytes: [UInt8]) throws(InputError) -> [InputEntry] {
        var mark = makeMark()
        lastCall = nil
        do {
            let entries = try consume(bytes, mark: &mark)
            lastCall = mark
            return entries
        } catch {
            throw refuse(error, consume mark)
        }
    }

    /// Ends the pending URL's options (ids are being read back, R12) and returns it.
    ///
    /// A partial unterminated line stays buffered. One that begins with a
    /// blank is an option line still being written: the URL's options have
    /// not ended, and it stays pending (taken with that line at the next URL,
    /// read-back or close), never taken without an option the user gave
    /// (R11). Not undoable: a caller that cannot keep the URL drops it.
    public mutating func takePending() -> [InputEntry] {
        lastCall = nil
        guard let pending, !Self.isBlank(partialLine.first) else { return [] }
        self.pending = nil
        return [pending.entry]
    }

    /// A space or TAB: what an option line (or a blank one) begins with.
    /// Space and tab: the blanks of the input form (R10); a line that
    /// starts with one is the option of the URL before it.
    static func isBlank(_ byte: UInt8?) -> Bool { byte == 0x20 || byte == 0x09 }

    /// At close: the unterminated final line is taken as complete, then everything pending is returned.
    ///
    /// Throws for a bad final line; the parser is then unchanged, so the caller
    /// may still `takePending()` the URLs accepted before it.
    public mutating func finish() throws(InputError) -> [InputEntry] {
        var mark = makeMark()
        lastCall = nil
        do {
            var entries: [InputEntry] = []
            if !partialLine.isEmpty {
                mark.replacedPartial = partialLine
                partialLine = []
                if let ended = try parseLine(mark.replacedPartial ?? [], mark: &mark) {
                    entries.append(ended)
                }
            }
            if let last = pending {
                pending = nil
                if last.line == mark.pendingLine { mark.endedPending = last }
                entries.append(last.entry)
            }
            lastCall = mark
            return entries
        } catch {
            // Nothing was ended before a throw here: no pending URL to share.
            throw refuse(error, mark)
        }
    }

    /// Undoes a refused call; drops the URL pending before it when the
    /// refused line was one of its options, and says so.
    private mutating func refuse(_ error: InputError, _ mark: consuming UndoMark) -> InputError {
        let dropped = mark.refusedPending ? mark.pendingLine : nil
        rollBack(mark)
        guard let dropped else { return error }
        pending = nil
        return InputError(line: error.line, reason: error.reason + "; the URL on line \(dropped) is refused with it")
    }

    /// Puts the parser back as it was before the last successful `feed` or
    /// `finish`: the caller could not keep the entries it returned (say, the
    /// catalog refused them), so that write is refused as a whole (R11).
    ///
    /// Does nothing if another call came in between, or after `takePending`.
    public mutating func undoLast() {
        guard let mark = lastCall else { return }
        lastCall = nil
        rollBack(consume mark)
    }

    private func makeMark() -> UndoMark {
        var options = pending?.options ?? TaskOptions()
        options.headers = []  // drops the reference: the live headers are never shared
        return UndoMark(partialCount: partialLine.count, replacedPartial: nil, linesConsumed: linesConsumed,
                        pendingLine: pending?.line, pendingOptions: options,
                        headerCount: pending?.options.headers.count ?? 0, endedPending: nil)
    }

    /// Takes the mark (`consume` at the call) so the pending URL it may hold is
    /// referenced once and its headers are cut back in place.
    private mutating func rollBack(_ mark: consuming UndoMark) {
        if let replaced = mark.replacedPartial {
            partialLine = replaced
        } else if partialLine.count > mark.partialCount {
            partialLine.removeSubrange(mark.partialCount...)
        }
        linesConsumed = mark.linesConsumed
        guard mark.pendingLine != nil else {
            pending = nil
            return
        }
        var original: PendingURL
        if let ended = mark.endedPending {
            mark.endedPending = nil
            original = ended
        } else {
            // Still pending: the call only added option lines to it.
            original = pending!
        }
        pending = nil  // `original` is now the only reference: the cuts below happen in place
        var options = mark.pendingOptions
        swap(&options.headers, &original.options.headers)
        if options.headers.count > mark.headerCount {
            options.headers.removeSubrange(mark.headerCount...)
        }
        original.options = options
        pending = original
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

    /// Parses every complete line of one write; the partial line is changed only once all of them are accepted.
    private mutating func consume(_ bytes: [UInt8], mark: inout UndoMark) throws(InputError) -> [InputEntry] {
        var entries: [InputEntry] = []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let line: [UInt8]
            if start == 0 && !partialLine.isEmpty {
                // The line begun in earlier writes ends here.
                try checkLength(partialLine.count + newline, lastByte: newline > 0 ? bytes[newline - 1] : partialLine.last,
                                seen: bytes[..<newline], mark: &mark)
                line = partialLine + bytes[..<newline]
            } else {
                try checkLength(newline - start, lastByte: newline > start ? bytes[newline - 1] : nil,
                                seen: bytes[start..<newline], mark: &mark)
                line = Array(bytes[start..<newline])
            }
            if let ended = try parseLine(line, mark: &mark) {
                entries.append(ended)
            }
            start = newline + 1
        }
        let rest = bytes.count - start
        if rest > 0 {
            // A partial line that can no longer fit is refused now, not after unbounded buffering.
            let length = (start == 0 ? partialLine.count : 0) + rest
            if length > InputParser.maxLineBytes + 1
                || (length == InputParser.maxLineBytes + 1 && bytes[bytes.count - 1] != 0x0D) {
                noteRefusedOptionLine(bytes[start...], continuing: start == 0, mark: &mark)
                throw InputError(line: linesConsumed + 1, reason: InputParser.tooLongReason(length))
            }
        }
        if start == 0 {
            partialLine.append(contentsOf: bytes)
        } else {
            mark.replacedPartial = partialLine
            partialLine = Array(bytes[start...])
        }
        return entries
    }

    /// Refuses a completed line longer than allowed (a final "\r" does not count).
    ///
    /// `seen` is the line's part in this write; the rest, when
    /// the line began in an earlier one, is the partial line.
    private func checkLength(_ length: Int, lastByte: UInt8?, seen: ArraySlice<UInt8>,
                             mark: inout UndoMark) throws(InputError) {
        let content = lastByte == 0x0D ? length - 1 : length
        if content > InputParser.maxLineBytes {
            noteRefusedOptionLine(seen, continuing: seen.startIndex == 0 && !partialLine.isEmpty, mark: &mark)
            throw InputError(line: linesConsumed + 1, reason: InputParser.tooLongReason(content))
        }
    }

    /// A too-long line refused before it is parsed: when it is an option
    /// line of the URL pending before this call (it begins with a blank and
    /// is not all blanks), that URL is refused with it, as for a malformed
    /// option (R11) — it is never added without the options the user gave.
    ///
    /// `seen` is the line's bytes in this write; `continuing` says the
    /// line began in an earlier write, as the partial line.
    private func noteRefusedOptionLine(_ seen: ArraySlice<UInt8>, continuing: Bool, mark: inout UndoMark) {
        guard let pendingLine = mark.pendingLine, pending?.line == pendingLine else { return }
        let begun = continuing ? partialLine[...] : []
        guard Self.isBlank(begun.first ?? seen.first) else { return }
        mark.refusedPending = begun.contains { !Self.isBlank($0) } || seen.contains { !Self.isBlank($0) }
    }

    private static func tooLongReason(_ length: Int) -> String {
        "line is longer than 8 KiB (\(length) bytes, at most \(maxLineBytes))"
    }

    /// Parses one complete line; returns the previous URL when this line starts a new one.
    ///
    /// Changes the pending URL in place; `mark` learns of a pending URL from
    /// before the call that this line ends, so a refusal can bring it back.
    /// The line is looked at as bytes (blanks, `#` and control characters are
    /// all ASCII or C1), and made into a String once, for the URL or the option.
    private mutating func parseLine(_ raw: [UInt8], mark: inout UndoMark) throws(InputError) -> InputEntry? {
        linesConsumed += 1
        let number = linesConsumed
        var lower = 0
        var upper = raw.count
        if upper > 0 && raw[upper - 1] == 0x0D { upper -= 1 }
        if number == 1, raw.starts(with: [0xEF, 0xBB, 0xBF]) { lower = min(3, upper) }
        func reject(_ reason: String) -> InputError { InputError(line: number, reason: reason) }

        guard upper - lower <= InputParser.maxLineBytes else {
            throw reject(InputParser.tooLongReason(upper - lower))
        }
        // A final CR and a leading BOM are valid UTF-8 themselves.
        guard UTF8Validation.isValid(raw) else {
            throw reject("invalid UTF-8")
        }
        let line = raw[lower..<upper]
        guard let first = line.firstIndex(where: { !Self.isBlank($0) }) else {
            return nil  // blank line: skipped, does not end options
        }
        if line[first] == UInt8(ascii: "#") {
            if let c = InputParser.firstControlCharacter(line, allowingTab: true) { throw reject(c) }
            return nil
        }
        if first > line.startIndex {
            let content = line[first...]
            guard pending != nil else {
                throw reject("option line without a URL before it")
            }
            // An option of the URL pending before this call refuses that URL too.
            if mark.pendingLine != nil && pending?.line == mark.pendingLine { mark.refusedPending = true }
            if let c = InputParser.firstControlCharacter(content, allowingTab: false) { throw reject(c) }
            // In place: a copy of the options here, per line, made parsing quadratic.
            let text = String(decoding: content, as: UTF8.self)
            // Only `load-cookies` looks at the URLs (a header line must not build an array).
            let urls = text.hasPrefix("load-cookies=") ? [pending!.url] + pending!.mirrors : []
            if let reason = InputOptionLine.apply(text, to: &pending!.options, urls: urls, context: context) {
                throw reject(reason)
            }
            mark.refusedPending = false
            return nil
        }

        // Trailing spaces are dropped; a trailing TAB is an empty mirror field, refused below.
        let last = line.lastIndex(where: { $0 != 0x20 }) ?? first
        let urlBytes = line[first...last]
        if let c = InputParser.firstControlCharacter(urlBytes, allowingTab: true) { throw reject(c) }
        let urls: [String]
        do { urls = try InputParser.mirrorURLs(urlBytes) } catch { throw reject(error.reason) }
        let ended = pending
        if let ended, ended.line == mark.pendingLine { mark.endedPending = ended }
        pending = PendingURL(url: urls[0], mirrors: Array(urls.dropFirst()), options: TaskOptions(), line: number)
        return ended?.entry
    }

    /// Why a URL line is refused, before the line number is put to it.
    private struct LineRefusal: Error {
        var reason: String
    }

    /// The URLs of one URL line (R10, R19): TAB-separated mirrors of one
    /// file, each checked as a single URL is (R11), spaces around a field
    /// dropped, later duplicates of a URL (after normalisation, R13) left out.
    ///
    /// `bytes` holds no control character but TAB, and starts with a non-blank.
    private static func mirrorURLs(_ bytes: ArraySlice<UInt8>) throws(LineRefusal) -> [String] {
        let fields = bytes.split(separator: 0x09, omittingEmptySubsequences: false)
        var urls: [String] = []
        var seen: Set<String> = []
        for (index, raw) in fields.enumerated() {
            // Which URL of the line, when there are several.
            let which = fields.count > 1 ? "URL \(index + 1) of \(fields.count): " : ""
            guard let start = raw.firstIndex(where: { $0 != 0x20 }),
                  let end = raw.lastIndex(where: { $0 != 0x20 }) else {
                throw LineRefusal(reason: "empty URL field (two TABs in a row, or a TAB at the end of the line): "
                    + "mirrors of one file are separated by one TAB")
            }
            let field = raw[start...end]
            if field.contains(0x20) {
                throw LineRefusal(reason: "\(which)a space inside a URL: mirrors of one file are separated by a TAB, "
                    + "other URLs go on lines of their own")
            }
            let url = String(decoding: field, as: UTF8.self)
            if let reason = validateURL(url) { throw LineRefusal(reason: which + reason) }
            // One URL (the common case, 100,000 lines at a time) needs no normalising here.
            if fields.count == 1 || seen.insert(URLNormalizer.normalize(url)).inserted { urls.append(url) }
        }
        return urls
    }

    /// The rejection reason for the first C0, DEL or C1 control character in
    /// `bytes` (valid UTF-8, where C1 is 0xC2 then 0x80–0x9F), if any.
    private static func firstControlCharacter(_ bytes: ArraySlice<UInt8>, allowingTab: Bool) -> String? {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            var control: UInt8?
            if byte < 0x20 {
                if !(allowingTab && byte == 0x09) { control = byte }
            } else if byte == 0x7F {
                control = byte
            } else if byte == 0xC2, i + 1 < bytes.endIndex, (0x80...0x9F).contains(bytes[i + 1]) {
                control = bytes[i + 1]
            }
            if let control {
                let hex = String(control, radix: 16, uppercase: true)
                return "control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex) in line"
            }
            i += 1
        }
        return nil
    }
}
