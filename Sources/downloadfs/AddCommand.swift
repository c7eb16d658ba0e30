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

            Example:
              downloadfs add https://example.com/a.iso https://example.com/b.iso
              downloadfs add --mount ~/dl -i list.txt
              downloadfs add - < list.txt
            """
    )

    @Option(help: "The downloadfs mount to use (default: the only one mounted).")
    var mount: String?

    @Option(name: [.customShort("i"), .long], help: ArgumentHelp(
        "Read URLs and options from an aria2 input file (- for stdin).", valueName: "file"))
    var inputFile: [String] = []

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
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errno == EINVAL ? lastLogLine(root) : String(cString: strerror(errno))
                throw ClientError("add: the mount refused the input: \(reason)").exit()
            }
            written += n
        }
        var ids = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var offset = 0
        while true {
            let n = pread(fd, &buffer, buffer.count, off_t(offset))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            ids += buffer[..<n]
            offset += n
        }
        FileHandle.standardOutput.write(Data(ids))
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

    private func lastLogLine(_ root: String) -> String {
        let log = (try? String(contentsOfFile: root + "/log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").last.map(String.init) ?? "Invalid argument (see \(root)/log)"
    }
}
