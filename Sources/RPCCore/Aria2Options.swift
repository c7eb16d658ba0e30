import DownloadFSCore

/// aria2 options as the mount takes them (R72): `addUri`'s as option lines
/// of the input text (R10), `changeOption`'s and `changeGlobalOption`'s
/// as `ctl` commands (R30, R31).
///
/// Every option is checked before anything is written, so a call with one
/// refused option changes nothing. The values are checked by the mount
/// (its parser and its `ctl`s are the one judge); here only what would
/// break the text itself (a line break) and the options downloadfs does
/// not have are refused.
struct Aria2Options {
    /// The input options of R10 that `addUri` passes on as they are
    /// (`dir` and `header` are handled apart).
    static let inputKeys: Set<String> = ["out", "referer", "user-agent", "http-user", "http-passwd", "all-proxy",
                                         "load-cookies", "checksum", "max-download-limit", "split"]

    /// aria2 options that ask for what downloadfs always does, with the
    /// values that say so (nil: any `true`/`false`): accepted and ignored.
    /// `continue` and `always-resume`: a task always resumes its own data
    /// and never meets a file it did not write. `auto-file-renaming=true`
    /// and `allow-overwrite=false`: a taken name gets ` (1)` (R17).
    /// `remote-time=true`: a file's mtime is the server's Last-Modified
    /// (R40). `check-certificate=true`: TLS is always verified.
    /// `parameterized-uri=false`: a URL is taken as written.
    static let ignored: [String: String?] = [
        "continue": nil, "always-resume": nil, "auto-file-renaming": "true", "allow-overwrite": "false",
        "remote-time": "true", "check-certificate": "true", "parameterized-uri": "false",
    ]

    /// What `addUri` writes to `queue/new`, and whether the task is to be
    /// paused once added (`pause=true`, as aria2c adds it paused).
    struct Input: Equatable {
        var text: String
        var pause: Bool
    }

    /// The input text for one task whose URLs are `uris` (mirrors, R19):
    /// the URLs TAB-separated on one line, then `  key=value` lines.
    /// `dir` is relative to `files/`, or an absolute path under
    /// `MOUNT/files` (R35), which is made relative.
    static func input(uris: [String], options: [String: [String]], mount: String) throws(Aria2Error) -> Input {
        guard !uris.isEmpty else { throw .invalidParams("URI is not provided.") }
        for uri in uris where uri.isEmpty || uri.contains(where: { $0 == "\t" || $0.isNewline }) {
            throw .invalidParams("A URI is empty or holds a TAB or a line break.")
        }
        var lines = [uris.joined(separator: "\t")]
        var pause = false
        for key in options.keys.sorted() {
            let values = options[key]!
            for value in values where value.contains(where: \.isNewline) {
                throw .failure("The option \(key) holds a line break.")
            }
            switch key {
            case "header":
                lines += values.map { "  header=\($0)" }
            case "dir":
                lines.append("  dir=" + (try folder(try single(key, values), mount: mount)))
            case "pause":
                pause = try flag(key, try single(key, values)) == "true"
            case _ where inputKeys.contains(key):
                lines.append("  \(key)=\(try single(key, values))")
            default:
                try ignore(key, values)
            }
        }
        // A `dir` of `MOUNT/files` itself asks for the top of `files/`: no line.
        lines.removeAll { $0 == "  dir=" }
        return Input(text: lines.joined(separator: "\n") + "\n", pause: pause)
    }

    /// A task's `ctl` commands for `changeOption`: `max-download-limit` →
    /// `limit`, `split` → `split`; ignored ones as in `addUri`.
    static func taskCommands(_ options: [String: [String]]) throws(Aria2Error) -> [String] {
        try commands(options, words: ["max-download-limit": "limit", "split": "split"], parse: ControlCommand.parseTask)
    }

    /// `MOUNT/ctl` commands for `changeGlobalOption`:
    /// `max-concurrent-downloads` → `max-active`, `max-overall-download-limit`
    /// → `limit`, `split` → `split`; `dir` is `MOUNT/files` and cannot change.
    static func globalCommands(_ options: [String: [String]], mount: String) throws(Aria2Error) -> [String] {
        var options = options
        if let dir = options.removeValue(forKey: "dir") {
            guard try folder(try single("dir", dir), mount: mount).isEmpty else {
                throw .failure("dir cannot change: downloads go to \(mount)/files")
            }
        }
        return try commands(options, words: ["max-concurrent-downloads": "max-active",
                                             "max-overall-download-limit": "limit", "split": "split"],
                            parse: ControlCommand.parseGlobal)
    }

    /// `WORD VALUE` for each option `words` names, checked by the `ctl`'s
    /// own parser before any is written; other options as `ignore` says.
    private static func commands(_ options: [String: [String]], words: [String: String],
                                 parse: (String) -> Result<ControlCommand, ControlCommandError>)
        throws(Aria2Error) -> [String] {
        var commands: [String] = []
        for key in options.keys.sorted() {
            let values = options[key]!
            if let word = words[key] {
                commands.append(word + " " + (try single(key, values)))
            } else {
                try ignore(key, values)
            }
        }
        for command in commands {
            if case .failure(let refusal) = parse(command) { throw .failure(refusal.message) }
        }
        return commands
    }

    /// `dir` relative to `files/`: "" for `MOUNT/files` itself. A relative
    /// one is passed on as it is (the mount checks it, R35).
    /// A trailing `/` is dropped (`isos/`, as a client's folder picker writes it).
    static func folder(_ dir: String, mount: String) throws(Aria2Error) -> String {
        var path = Substring(dir)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        guard path.hasPrefix("/") else { return String(path) }
        let files = mount + "/files"
        if path == files { return "" }
        guard path.hasPrefix(files + "/") else {
            throw .failure("dir \(dir) is not under \(files): downloads go there (give a folder under it, or a relative one)")
        }
        return String(path.dropFirst(files.count + 1))
    }

    private static func single(_ key: String, _ values: [String]) throws(Aria2Error) -> String {
        guard values.count == 1 else { throw .failure("The option \(key) takes one value.") }
        return values[0]
    }

    private static func flag(_ key: String, _ value: String) throws(Aria2Error) -> String {
        guard value == "true" || value == "false" else { throw .failure("The option \(key) takes true or false.") }
        return value
    }

    /// Accepts an option of `ignored` with a value that asks for what
    /// downloadfs does; refuses any other option.
    private static func ignore(_ key: String, _ values: [String]) throws(Aria2Error) {
        guard let wanted = ignored[key] else {
            throw .failure("downloadfs does not take the option \(key)")
        }
        let value = try flag(key, try single(key, values))
        if let wanted, value != wanted {
            throw .failure("downloadfs always does \(key)=\(wanted)")
        }
    }
}
