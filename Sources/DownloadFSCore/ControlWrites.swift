/// The writes to one open `ctl` file (R30, R31): each holds one command.
///
/// A write is checked whole before any of it is carried out: one holding
/// two commands (`pause\nresume`), or a command and anything else, is
/// refused and changes nothing (R6). Blank lines around the command are
/// ignored, so a heredoc's or `echo -e`'s trailing empty line is no
/// second command.
///
/// A write of blank lines alone is no command. Right after another write
/// to the same open file it is the end of that write's text: shells write
/// their builtins' output line by line (`printf 'limit 1M\n\n'` and
/// `echo -e 'limit 1M\n'` make two writes, the second "\n"), and it is
/// taken as nothing, so the command that was carried out is not reported
/// as failed. As the first write (`echo "$unset" > ctl`) it is refused
/// like any write that holds no command.
public struct ControlWrites: Sendable {
    /// A write with something in it came before on this open file.
    private var written = false

    public init() {}

    /// The command `text` holds, nil for blank lines that end an earlier
    /// write, or why it is refused. `parse` is `ControlCommand.parseTask`
    /// or `parseGlobal`.
    public mutating func command(in text: String, parse: (String) -> Result<ControlCommand, ControlCommandError>)
        -> Result<ControlCommand?, ControlCommandError>
    {
        let blank = text.allSatisfy(\.isWhitespace)
        if blank && written { return .success(nil) }
        if !blank { written = true }
        return parse(text).map { $0 }
    }
}
