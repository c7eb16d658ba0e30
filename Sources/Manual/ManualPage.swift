import DownloadFSCore
import Foundation

/// `downloadfs(1)`: the whole man page as mdoc(7), made from the command
/// line's own definitions (argument-parser's description of every command,
/// option and flag) and from the core's lists of what the mount takes and
/// shows (`StatusRenderer.keys`, `InputOptionLine.knownKeys`,
/// `ControlCommand.taskForms` and `globalForms`), with the sentences
/// `ManualGlossary` and `MountEntry` keep for them.
///
/// Pure: the installed binary prints it (`downloadfs --generate-manual`),
/// so installing needs no second build, and unit tests render it from a
/// made-up command tree.
public struct ManualPage: Sendable {
    /// The `downloadfs` command and its subcommands.
    public var root: ManualCommand
    /// The page's date (`.Dd`): the source's, for a page that does not
    /// change from one build of the same source to the next.
    public var date: Date
    /// The exit status of a command that failed (argument-parser's `ExitCode.failure`).
    public var failureStatus: Int32
    /// The exit status of a command line that does not parse (`ExitCode.validationFailure`).
    public var usageStatus: Int32

    public init(root: ManualCommand, date: Date, failureStatus: Int32, usageStatus: Int32) {
        self.root = root
        self.date = date
        self.failureStatus = failureStatus
        self.usageStatus = usageStatus
    }

    /// The page.
    public func rendered() -> String {
        var page = MdocWriter()
        header(&page)
        synopsis(&page)
        description(&page)
        commands(&page)
        filesystem(&page)
        inputOptions(&page)
        controlCommands(&page)
        statusKeys(&page)
        events(&page)
        environment(&page)
        exitStatus(&page)
        seeAlso(&page)
        return page.page
    }

    private var name: String { root.commandName }

    private func header(_ page: inout MdocWriter) {
        page.macro("Dd", .argument(Self.mdocDate(date)))
        page.macro("Dt", .argument(name.uppercased()), "1")
        page.macro("Os", .argument("\(name) \(ProductVersion.current)"))
        page.macro("Sh", "NAME")
        page.macro("Nm", .argument(name))
        var abstract = root.abstract ?? ""
        if abstract.hasSuffix(".") { abstract.removeLast() }
        if let first = abstract.first { abstract = first.lowercased() + abstract.dropFirst() }
        page.macro("Nd", .argument(abstract))
    }

    /// `.Dd` wants `Month D, YYYY`.
    static func mdocDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        // English whatever the locale, and without Foundation's locale data
        // (`monthSymbols` gives `M11` in a static binary).
        let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                      "September", "October", "November", "December"]
        return "\(months[(parts.month ?? 1) - 1]) \(parts.day ?? 1), \(parts.year ?? 1970)"
    }

    private func synopsis(_ page: inout MdocWriter) {
        page.macro("Sh", "SYNOPSIS")
        for command in root.shownSubcommands {
            page.macro("Nm")
            page.macro("Cm", .argument(command.commandName))
            for argument in command.shownArguments where !isHelp(argument) {
                var words = Self.usage(argument)
                if argument.isRepeating { words.append("...") }
                if argument.isOptional {
                    page.macro("Op", words)
                } else if case .macro(let first) = words[0] {
                    page.macro(first, Array(words.dropFirst()))
                }
            }
        }
        page.macro("Nm")
        page.macro("Fl", "-version")
    }

    /// `-h, --help` and `--version`: argument-parser gives every command
    /// both; the page says so once, under the root.
    private func isHelp(_ argument: ManualArgument) -> Bool {
        argument.kind == .flag && !argument.writtenNames.filter { $0 == "--help" || $0 == "--version" }.isEmpty
    }

    /// `Fl -max-active Ar n`, `Ar mountpoint`: how the argument is written in a synopsis.
    private static func usage(_ argument: ManualArgument) -> [MdocWord] {
        let value = MdocWord.argument(argument.valueName ?? argument.preferredName?.name ?? "value")
        let flag = (argument.preferredName ?? argument.names?.first).map { MdocWord.argument(String($0.written.dropFirst())) }
        switch argument.kind {
        case .positional: return [.macro("Ar"), value]
        case .option: return [.macro("Fl"), flag ?? "-", .macro("Ar"), value]
        case .flag: return [.macro("Fl"), flag ?? "-"]
        }
    }

    private func description(_ page: inout MdocWriter) {
        page.macro("Sh", "DESCRIPTION")
        if let abstract = root.abstract { page.textLine(abstract) }
        page.paragraph()
        if let discussion = root.discussion { page.prose(discussion) }
        page.paragraph()
        page.textLine("Every command takes -h or --help, which shows its options and an example:")
        argumentList(root.shownArguments, &page)
    }

    private func commands(_ page: inout MdocWriter) {
        page.macro("Sh", "COMMANDS")
        for command in root.shownSubcommands {
            page.macro("Ss", .argument(command.fullName))
            if let abstract = command.abstract { page.textLine(abstract) }
            page.paragraph()
            if let discussion = command.discussion { page.prose(discussion) }
            argumentList(command.shownArguments.filter { !isHelp($0) }, &page)
        }
    }

    /// A tagged list: each argument's names and value, then what it does and its default.
    private func argumentList(_ arguments: [ManualArgument], _ page: inout MdocWriter) {
        guard !arguments.isEmpty else { return }
        page.beginTagList()
        for argument in arguments {
            var tag: [MdocWord] = []
            if argument.kind == .positional {
                tag = Self.usage(argument)
            } else {
                for (index, written) in argument.writtenNames.enumerated() {
                    if index > 0 { tag.append(.delimiter(",")) }
                    tag += [.macro("Fl"), .argument(String(written.dropFirst()))]
                }
                if argument.kind == .option {
                    tag += [.macro("Ar"), .argument(argument.valueName ?? "value")]
                }
            }
            if argument.isRepeating { tag.append("...") }
            page.macro("It", tag)
            if let abstract = argument.abstract { page.prose(abstract) }
            if let discussion = argument.discussion { page.paragraph(); page.prose(discussion) }
            if let value = argument.defaultValue, !(argument.abstract ?? "").contains("default") {
                page.textLine("The default is \(value).")
            }
        }
        page.macro("El")
    }

    private func filesystem(_ page: inout MdocWriter) {
        page.macro("Sh", "FILESYSTEM")
        page.prose("""
            Everything is done through the mount's files; the commands above only read and write them.
            Under the mountpoint:
            """)
        page.beginTagList()
        for entry in MountEntry.layout {
            page.macro("It", .macro("Pa"), .argument(entry.path))
            page.textLine(entry.mode.map { "(\($0)) " + entry.text } ?? entry.text)
        }
        page.macro("El")
        page.prose("Extended attributes, read with getfattr -n NAME; none can be set:")
        page.beginTagList()
        for attribute in MountAttribute.all {
            page.macro("It", .macro("Va"), .argument(attribute.name))
            page.textLine(attribute.text)
        }
        page.macro("El")
        page.prose("""
            Every entry belongs to the user who mounted, and nobody else may use the mount unless
            it was mounted with -o allow_other. Refused writes change nothing.
            """)
    }

    private func inputOptions(_ page: inout MdocWriter) {
        page.macro("Sh", "INPUT OPTIONS")
        page.prose("""
            What is written to queue/new is an aria2 input file. Each line not blank and not
            starting with # is a URL (http, https, ftp or ftps); several URLs on one line,
            separated by TABs, are mirrors of one file, and the task's connections are spread
            over them. The lines right after a URL that start with a blank are its options,
            key=value, one per line:
            """)
        page.beginTagList()
        for key in InputOptionLine.knownKeys {
            var tag: [MdocWord] = [.macro("Cm"), .argument(key), .macro("Ns"), "=", .macro("Ns")]
            tag += [.macro("Ar"), .argument(ManualGlossary.inputOptionValues[key] ?? "VALUE")]
            page.macro("It", tag)
            if let text = ManualGlossary.inputOptions[key] { page.textLine(text) }
        }
        page.macro("El")
        page.prose("""
            A write that holds a line the mount refuses (another scheme, an unknown or malformed
            option, control characters) is refused whole with EINVAL, nothing of it is added, and
            the mount's log says which line and why. A URL already queued answers its task's id
            instead of making a new task.
            """)
        page.literalDisplay([
            "echo https://example.com/a.iso > MOUNT/queue/new",
            "printf 'https://a.example/f.iso\\thttps://b.example/f.iso\\n  out=f.iso\\n  split=8\\n' > MOUNT/queue/new",
            "cat aria2-input.txt > MOUNT/queue/new",
        ])
    }

    private func controlCommands(_ page: inout MdocWriter) {
        page.macro("Sh", "CONTROL COMMANDS")
        page.prose("""
            A command is one write to a ctl file, as echo makes it (downloadfs ctl does the same).
            Anything else is refused with EINVAL and the log says why. RATE is like 500K, 2M or
            1.5MiB (K, M and G are 1024-based).
            """)
        page.macro("Ss", "queue/<id>/ctl")
        commandList(ControlCommand.taskForms, ManualGlossary.taskCommands, &page)
        page.macro("Ss", "ctl")
        commandList(ControlCommand.globalForms, ManualGlossary.globalCommands, &page)
    }

    /// `move N`: the word as a command, what follows as its argument.
    private func commandList(_ forms: [String], _ texts: [String: String], _ page: inout MdocWriter) {
        page.beginTagList()
        for form in forms {
            let words = form.split(separator: " ").map(String.init)
            page.macro("It", [.macro("Cm"), .argument(words[0])] + words.dropFirst().flatMap { [MdocWord.macro("Ar"), .argument($0)] })
            if let text = texts[form] { page.textLine(text) }
        }
        page.macro("El")
    }

    private func statusKeys(_ page: inout MdocWriter) {
        page.macro("Sh", "STATUS KEYS")
        page.prose("""
            queue/<id>/status has one key: value per line, every key always present, in this
            order (- when it does not apply):
            """)
        page.beginTagList()
        for key in StatusRenderer.keys {
            page.macro("It", .macro("Cm"), .argument(key), .delimiter(":"))
            if let text = ManualGlossary.statusKeys[key] { page.textLine(text) }
        }
        page.macro("El")
    }

    private func events(_ page: inout MdocWriter) {
        page.macro("Sh", "EVENTS")
        let states = TaskState.allCases.map(\.rawValue).joined(separator: ", ")
        page.prose("""
            A read of the mount's events file blocks until a task changes, then returns whole lines
            TIME ID EVENT NAME, from the moment the file was opened: TIME is seconds since the epoch
            with milliseconds, EVENT is added, a state the task enters (\(states)), removed,
            renamed (NAME is the new name) or forgotten, and NAME, which may hold spaces, ends the
            line. A reader more than 10,000 lines behind reads TIME - lost N and goes on with the
            newest. poll(2) and epoll(7) see it readable when a line waits.
            """)
        page.literalDisplay(["cat MOUNT/events | while read -r time id event name; do ...; done"])
    }

    private func environment(_ page: inout MdocWriter) {
        page.macro("Sh", "ENVIRONMENT")
        page.beginTagList()
        page.macro("It", Self.variables("XDG_DATA_HOME"))
        page.textLine("The default state dir is $XDG_DATA_HOME/downloadfs, or ~/.local/share/downloadfs without it.")
        page.macro("It", Self.variables("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"))
        page.textLine("Proxies, read as curl reads them, for tasks without all-proxy=.")
        page.macro("It", Self.variables("SSL_CERT_FILE", "SSL_CERT_DIR"))
        page.textLine("Trusted CA certificates instead of the system's (--ca-certificate adds to them).")
        page.macro("It", Self.variables("DOWNLOADFS_ID", "DOWNLOADFS_NAME", "DOWNLOADFS_PATH", "DOWNLOADFS_URL"))
        page.textLine("Set for the mount --on-complete command: the task's id, name, file in the state dir and URL.")
        page.macro("El")
    }

    /// `Ev A , Ev B`: environment variables named in a list item.
    private static func variables(_ names: String...) -> [MdocWord] {
        names.enumerated().flatMap { index, name in
            (index > 0 ? [MdocWord.delimiter(",")] : []) + [.macro("Ev"), .argument(name)]
        }
    }

    private func exitStatus(_ page: inout MdocWriter) {
        page.macro("Sh", "EXIT STATUS")
        page.beginTagList()
        page.macro("It", "0")
        page.textLine("Success; for wait and add --wait, every task waited on completed.")
        page.macro("It", .argument(String(failureStatus)))
        page.textLine("""
            Failure, said in one line on stderr: a mount that could not be made, a mount that \
            refused a command or an input line, a task id that is not there, a --mount DIR that \
            is not a downloadfs mount.
            """)
        page.macro("It", .argument(String(TaskEnding.someFailedStatus)))
        page.textLine("wait and add --wait: some task failed (as aria2c says when some downloads failed).")
        page.macro("It", .argument(String(usageStatus)))
        page.textLine("""
            The command line is wrong: an unknown option, a missing or bad argument (for add, a URL \
            argument that is empty, blank, a comment, or more than one line).
            """)
        page.macro("El")
    }

    private func seeAlso(_ page: inout MdocWriter) {
        page.macro("Sh", "SEE ALSO")
        // By section, then by name, as mdoc orders them.
        page.macro("Xr", "aria2c", "1", .delimiter(","))
        page.macro("Xr", "fusermount3", "1", .delimiter(","))
        page.macro("Xr", "fstab", "5", .delimiter(","))
        page.macro("Xr", "systemd.unit", "5", .delimiter(","))
        page.macro("Xr", "mount.fuse3", "8")
    }
}
