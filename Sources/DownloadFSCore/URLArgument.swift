/// A URL given to `downloadfs add` on its command line (R4), which `add`
/// writes to `queue/new` as one line of aria2's input form (R10).
///
/// That form gives some lines other meanings: a blank line or a `#` line is
/// skipped, a line that starts with a blank is the option of the URL before
/// it, and a line break starts another line. An argument that is one of
/// these would add nothing (and `add` would print no id, exit 0), or slip
/// option lines of its own into the input (`URL<newline>  out=x`). Each
/// argument is therefore exactly one URL line, or refused before anything
/// is written. Options go in an input file (`-i FILE`), where they are
/// meant.
public enum URLArgument {
    /// Why `argument` cannot be one URL line, as a sentence; nil when it can.
    /// What makes a URL acceptable (its scheme, host, characters) is the
    /// mount's to judge (R11): only the line's shape is looked at here.
    public static func problem(with argument: String) -> String? {
        let bytes = argument.utf8
        if bytes.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            return "a URL argument holds a line break; give each URL as its own argument "
                + "(options go in an input file, -i FILE)"
        }
        guard let first = bytes.first(where: { !InputParser.isBlank($0) }) else {
            return argument.isEmpty ? "a URL argument is empty" : "a URL argument is blank (\"\(argument)\")"
        }
        if first == UInt8(ascii: "#") {
            return "\"\(argument)\" is a comment, not a URL (queue/new skips lines starting with #)"
        }
        if InputParser.isBlank(bytes.first) {
            return "\"\(argument)\" starts with a blank, which makes it an option line in queue/new; give the URL alone"
        }
        return nil
    }
}
