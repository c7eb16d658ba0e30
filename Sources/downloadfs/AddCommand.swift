import ArgumentParser
import Foundation
import Glibc

/// `downloadfs add URL...` (R4): a plain client of queue/new.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Queue URLs and print the id of each task, one per line.",
        discussion: """
            URLs already queued answer their existing task's id. Use - to read an
            aria2-style input file (URLs, and indented key=value options) from stdin.

            Example:
              downloadfs add https://example.com/a.iso https://example.com/b.iso
              downloadfs add --mount ~/dl - < list.txt
            """
    )

    @Option(help: "The downloadfs mount to use (default: the only one mounted).")
    var mount: String?

    @Argument(help: "URLs to download, or - to read an input file from stdin.")
    var urls: [String]

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL (or - for stdin)") }
    }

    func run() throws {
        let root: String
        do { root = try MountLocator.resolve(mount, command: "add") } catch let error as ClientError { throw error.exit() }
        var text = ""
        for url in urls {
            if url == "-" {
                text += String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                if !text.hasSuffix("\n") { text += "\n" }
            } else {
                text += url + "\n"
            }
        }
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

    private func lastLogLine(_ root: String) -> String {
        let log = (try? String(contentsOfFile: root + "/log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").last.map(String.init) ?? "Invalid argument (see \(root)/log)"
    }
}
