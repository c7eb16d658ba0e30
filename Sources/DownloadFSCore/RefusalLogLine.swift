/// A `MOUNT/log` line in which the daemon says why it refused or failed a
/// write to one of the mount's files — `queue/3/ctl: refused (pid 1234):
/// unknown command "x" (…)`, `queue/new: refused a write (pid 1234),
/// nothing added: line 2: …` — and how a client finds its own (R4).
///
/// The daemon writes such a line before it answers EINVAL (or EIO), and a
/// client that was refused prints it. The newest line of the file alone
/// would do while one client writes at a time; with several refused at
/// once each would print another's reason. So the line names the writer:
/// the id the kernel gives with the FUSE request, that of the thread that
/// wrote (the process's id for a single-threaded writer such as `echo` or
/// `downloadfs ctl`), and the client looks for its own.
///
/// The tag ends the line's first phrase, before any text the writer
/// chose, so a command or URL that holds `(pid N)` cannot pass for it.
public enum RefusalLogLine {
    /// ` (pid 1234)`, what the daemon puts after a refusal's first phrase;
    /// empty for 0, the kernel's id for a writer outside the daemon's pid
    /// namespace (a container), which no client could match.
    public static func tag(pid: Int32) -> String {
        pid > 0 ? " (pid \(pid))" : ""
    }

    /// The newest line of `log` (`<time> <message>` lines) whose message is
    /// from `source` (`queue/new`, `queue/3/ctl`, `ctl`: the message starts
    /// `<source>: `) and written for thread `pid`, without its time and its
    /// tag. Without one, the newest such line that names no writer (from a
    /// daemon before the tag, or a writer it could not name); nil when
    /// there is neither.
    public static func newest(from source: String, writer pid: Int32, inLog log: String) -> String? {
        let prefix = source + ": "
        var untagged: String?
        for line in log.split(separator: "\n").reversed() {
            guard let space = line.firstIndex(of: " ") else { continue }
            let message = line[line.index(after: space)...]
            // The whole source: `queue/3/ctl: …` is not the root's `ctl: …`.
            guard message.hasPrefix(prefix) else { continue }
            let rest = message.dropFirst(prefix.count)
            let phraseEnd = rest.firstIndex(where: { $0 == "," || $0 == ":" }) ?? rest.endIndex
            let phrase = rest[..<phraseEnd]
            guard let writer = writer(ofPhrase: phrase) else {
                if untagged == nil { untagged = String(message) }
                continue
            }
            if writer.pid == pid { return prefix + phrase[..<writer.tagStart] + rest[phraseEnd...] }
        }
        return untagged
    }

    /// The writer a first phrase names (`refused (pid 1234)`), and where its tag starts.
    private static func writer(ofPhrase phrase: Substring) -> (pid: Int32, tagStart: Substring.Index)? {
        guard phrase.hasSuffix(")"), let open = phrase.range(of: " (pid ", options: .backwards),
              let pid = Int32(phrase[open.upperBound..<phrase.index(before: phrase.endIndex)]) else { return nil }
        return (pid, open.lowerBound)
    }
}
