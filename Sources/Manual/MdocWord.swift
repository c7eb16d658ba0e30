/// One word of an mdoc(7) macro line: a macro called on the line (`Fl`,
/// `Ar`, `Ns`), punctuation mdoc sets as such (the `,` between two names),
/// or an argument, which `MdocWriter` escapes so that it is never read as
/// a macro, punctuation or two words.
public enum MdocWord: Sendable, Equatable, ExpressibleByStringLiteral {
    case macro(String)
    case delimiter(String)
    case argument(String)

    public init(stringLiteral value: String) { self = .argument(value) }

    /// The word as written on the macro line.
    var written: String {
        switch self {
        case .macro(let name), .delimiter(let name): return name
        case .argument(let text): return MdocWord.escapedArgument(text)
        }
    }

    /// An argument quoted when it holds a blank (or is empty), its quotes
    /// and backslashes escaped, and `\&` before anything mdoc would call
    /// (`Ar`, `No`) or take as punctuation (`(`, `,`, `|`).
    static func escapedArgument(_ text: String) -> String {
        var escaped = MdocWord.escapedText(text).replacingOccurrences(of: "\"", with: "\\(dq")
        if looksLikeMacro(text) || delimiters.contains(text) { escaped = "\\&" + escaped }
        return text.isEmpty || text.contains(where: { $0 == " " || $0 == "\t" }) ? "\"\(escaped)\"" : escaped
    }

    /// Text with its backslashes written as `\e`, the only character roff
    /// takes specially inside a line.
    static func escapedText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e")
    }

    /// What mdoc takes as punctuation when it stands alone as an argument.
    private static let delimiters: Set<String> = ["(", "[", ")", "]", ".", ",", ":", ";", "?", "!", "|"]

    /// Two or three letters, the first upper case: the shape of mdoc's
    /// callable macros.
    private static func looksLikeMacro(_ text: String) -> Bool {
        let letters = Array(text.unicodeScalars)
        guard (2...3).contains(letters.count), letters.allSatisfy({ $0.properties.isAlphabetic && $0.isASCII }) else {
            return false
        }
        return letters[0].properties.isUppercase
    }
}
