import ArgumentParser
import Foundation
import Glibc

/// `downloadfs add URL...` (R4): a plain client of queue/new.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Queue URLs and print the id of each task, one per line.",
        discussion: """
            URLs already queued answer their existing task's id. An aria2 input file
            (URLs, each followed by indented key=value options such as out=NAME)
            is read with -i FILE, or from stdin with - or -i -. If a line is refused,
            add fails and says which line and why.

            With --wait, add then waits as downloadfs wait does for the tasks it
            printed: one more line per task (ID completed NAME, ID failed: WHY),
            exit 0 when all completed, 3 when any failed.

            Example:
              downloadfs add https://example.com/a.iso https://example.com/b.iso
              downloadfs add --mount ~/dl -i list.txt
              downloadfs add - < list.txt
              downloadfs add --wait -i list.txt || echo some downloads failed
            """
    )

    @Option(help: ArgumentHelp("The downloadfs mount to use (default: the only one mounted).", valueName: "dir"))
    var mount: String?

    @Option(name: [.customShort("i"), .long], help: ArgumentHelp(
        "Read URLs and options from an aria2 input file (- for stdin).", valueName: "file"))
    var inputFile: [String] = []

    @Flag(help: "Then wait until the tasks have ended, as downloadfs wait does.")
    var wait = false

    @Argument(help: "URLs to download, or - to read an input file from stdin.")
    var urls: [String] = []

    func validate() throws {
        guard !urls.isEmpty || !inputFile.isEmpty else {
            throw ValidationError("give at least one URL, or an input file with -i FILE (- for stdin)")
        }
    }

    func run() throws {
        let root: String
        do { root = try MountLocator.resolve(mount, command: "add") } catch let error as ClientError { throw error.exit() }
        var text = ""
        for path in inputFile { text += try inputText(path) }
        for url in urls { text += url == "-" ? try inputText("-") : url + "\n" }
        let path = root + "/queue/new"
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw ClientError("add: cannot open \(path): \(String(cString: strerror(errno)))").exit()
        }
        // R4: any error from the mount — on write, on reading the ids back (the
        // daemon adds the last URL then, and a full catalog answers EIO), or on
        // close — is a failure with its reason, and no id is printed.
        let ids: [UInt8]
        do {
            try send(Array(text.utf8), to: fd, root: root)
            ids = try readIDs(fd, root: root)
        } catch {
            _ = close(fd)  // the input already failed; what close says adds nothing
            throw error.exit()
        }
        if close(fd) != 0 {
            throw failure(errno, root: root).exit()
        }
        FileHandle.standardOutput.write(Data(ids))
        guard wait else { return }
        let added = String(decoding: ids, as: UTF8.self).split(separator: "\n").compactMap { Int64($0) }
        do {
            throw ExitCode(try TaskWaiter(root: root, command: "add").wait(for: added))
        } catch let error as ClientError { throw error.exit() }
    }

    /// Writes the whole input, retrying short writes and EINTR.
    private func send(_ bytes: [UInt8], to fd: Int32, root: String) throws(ClientError) {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(errno, root: root)
            }
            written += n
        }
    }

    /// The ids the handle's writes added, one per line (R12), read to the end.
    private func readIDs(_ fd: Int32, root: String) throws(ClientError) -> [UInt8] {
        var ids = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = pread(fd, &buffer, buffer.count, off_t(ids.count))
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(errno, root: root)
            }
            if n == 0 { return ids }
            ids += buffer[..<n]
        }
    }

    /// One line saying why the mount refused or failed the input: for EINVAL
    /// and EIO (the errors the daemon logs) its own sentence from MOUNT/log,
    /// else the errno's (a dead mount, a full disk on our side).
    private func failure(_ code: Int32, root: String) -> ClientError {
        let reason = String(cString: strerror(code))
        let verb = code == EINVAL ? "refused" : "could not add"
        guard code == EINVAL || code == EIO, let line = lastInputLogLine(root) else {
            return ClientError("add: the mount \(verb) the input: \(reason)")
        }
        return ClientError("add: the mount \(verb) the input (\(reason)): \(line)")
    }

    /// An input file's text (stdin for -), ending in a newline.
    private func inputText(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ClientError("add: cannot read the input file \(path): \(String(cString: strerror(errno)))").exit()
            }
            data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
        }
        let text = String(decoding: data, as: UTF8.self)
        return text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
    }

    /// The newest line of MOUNT/log about queue/new, without its timestamp;
    /// nil when there is none.
    private func lastInputLogLine(_ root: String) -> String? {
        guard let log = try? String(contentsOfFile: root + "/log", encoding: .utf8),
              let line = log.split(separator: "\n").last(where: { $0.contains(" queue/new: ") }) else { return nil }
        return line.split(separator: " ", maxSplits: 1).last.map(String.init) ?? String(line)
    }
}
