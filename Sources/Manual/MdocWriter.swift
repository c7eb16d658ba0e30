import DownloadFSCore

/// Writes an mdoc(7) page line by line, so that no line can upset man(1)
/// or mandoc: no empty line (roff prints one as a blank line and warns),
/// no text line starting with a blank, `.` or `'`, no backslash left
/// unescaped, no paragraph macro where one already breaks.
///
/// argument-parser's own generator wrote empty lines for the blank lines
/// of a discussion (`man --warnings` said "Empty input line" for each);
/// here a blank line in prose becomes `.Pp`, and an indented block
/// (`Example:` and its commands) a literal display.
public struct MdocWriter: Sendable {
    private(set) var lines: [String] = []

    public init() {}

    /// The page, one line each, ending in a newline.
    public var page: String {
        (lines.last == ".Pp" ? lines.dropLast() : lines[...]).map { $0 + "\n" }.joined()
    }

    /// `.NAME WORD…`.
    public mutating func macro(_ name: String, _ words: MdocWord...) {
        macro(name, words)
    }

    public mutating func macro(_ name: String, _ words: [MdocWord]) {
        // These break and space by themselves; a paragraph just before is
        // one too many (mandoc: "skipping paragraph macro").
        if ["Sh", "Ss", "Bl", "Bd"].contains(name), lines.last == ".Pp" { lines.removeLast() }
        lines.append((["." + name] + words.map(\.written)).joined(separator: " "))
    }

    /// `.Bl -tag -width Ds`: a list of items with a tag each (`.It`), their
    /// text indented by the default amount; `.El` ends it.
    public mutating func beginTagList() {
        macro("Bl", "-tag", "-width", .macro("Ds"))
    }

    /// A paragraph break, unless the page is at one already (after a
    /// heading, a list item, the start of a list or display, or another
    /// break).
    public mutating func paragraph() {
        guard let last = lines.last else { return }
        let breaks = [".Sh ", ".Ss ", ".Pp", ".It", ".Bl ", ".Bd "]
        if breaks.contains(where: { last.hasPrefix($0) }) { return }
        lines.append(".Pp")
    }

    /// Prose: its lines filled as text; blank lines become paragraph
    /// breaks, and a run of indented lines a literal display.
    public mutating func prose(_ text: String) {
        var running: [Substring] = []
        var literal: [Substring] = []
        func flush(_ writer: inout MdocWriter) {
            if !running.isEmpty { writer.textLine(running.joined(separator: " ")) }
            if !literal.isEmpty { writer.literalDisplay(literal.map(String.init)) }
            running = []
            literal = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                flush(&self)
                paragraph()
            } else if line.first == " " || line.first == "\t" {
                if !running.isEmpty { flush(&self) }
                literal.append(line)
            } else {
                if !literal.isEmpty { flush(&self) }
                running.append(line)
            }
        }
        flush(&self)
    }

    /// Running text: each sentence on a line of its own (roff spaces
    /// sentences by where lines end; mandoc: "new sentence, new line"),
    /// long ones wrapped at `width` bytes. After a list or a display, in a
    /// new paragraph (roff would run it on right under the last line).
    public mutating func textLine(_ text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else { return }
        if lines.last == ".Ed" || lines.last == ".El" { lines.append(".Pp") }
        var line = ""
        for (index, word) in words.enumerated() {
            if !line.isEmpty && line.utf8.count + 1 + word.utf8.count > Self.width {
                lines.append(Self.safeLineStart(MdocWord.escapedText(line)))
                line = ""
            }
            line += line.isEmpty ? word : " " + word
            if index + 1 < words.count, Self.endsSentence(word, before: words[index + 1]) {
                lines.append(Self.safeLineStart(MdocWord.escapedText(line)))
                line = ""
            }
        }
        if !line.isEmpty { lines.append(Self.safeLineStart(MdocWord.escapedText(line))) }
    }

    /// How long a text line may grow before it is wrapped (mandoc's style limit).
    static let width = 80

    /// `exited.` before `If`, `(see FILES).` before `Reading`: a sentence
    /// ends at `.`, `?` or `!` (closing brackets and quotes after it
    /// allowed) when the next word starts with a capital or a digit, so
    /// `e.g. pause` stays one sentence.
    static func endsSentence(_ word: String, before next: String) -> Bool {
        let core = word.reversed().drop(while: { ")]\"'".contains($0) })
        guard let last = core.first, ".?!".contains(last), core.count > 1,
              let start = next.unicodeScalars.first else { return false }
        return start.properties.isUppercase || ("0"..."9").contains(start)
    }

    /// Lines shown as they are (`.Bd -literal`), their common indent removed.
    public mutating func literalDisplay(_ shown: [String]) {
        let indent = shown.filter { !$0.trimmingSpacesAndTabs().isEmpty }
            .map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        macro("Bd", "-literal", "-offset", "indent")
        for line in shown {
            let kept = String(line.dropFirst(min(indent, line.prefix(while: { $0 == " " }).count)))
            var text = kept
            while text.last == " " || text.last == "\t" { text.removeLast() }
            // An empty line inside the display is written as a zero-width one.
            lines.append(text.isEmpty ? "\\&" : Self.safeLineStart(MdocWord.escapedText(text)))
        }
        macro("Ed")
    }

    /// `\&` before a line that roff would read as a request (`.`, `'`) or
    /// start with a break (a blank).
    private static func safeLineStart(_ line: String) -> String {
        guard let first = line.first, first == "." || first == "'" || first == " " else { return line }
        return "\\&" + line
    }
}
