import ArgumentParser
import DownloadFSCore
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
            add fails and says which line and why. Each URL argument is one URL (or
            TAB-separated mirrors of one file): an empty or blank one, a # comment, one
            starting with a blank or holding a line break is refused before anything
            is added (exit 64); options go in an input file.

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
        // R4: an argument that would add nothing, or bring lines of its own,
        // is refused before anything is written, not passed to the mount.
        for url in urls where url != "-" {
            if let problem = URLArgument.problem(with: url) { throw ValidationError(problem) }
        }
    }

    func run() throws {
        let root: String
        do { root = try MountLocator.resolve(mount, command: "add") } catch let error as ClientError { throw error.exit() }
        var text = ""
        for path in inputFile { text += try inputText(path) }
        for url in urls { text += url == "-" ? try inputText("-") : url + "\n" }
        // Made first, so it hears of the tasks from their adding on (a small
        // file may complete and be forgotten before its wait is read).
        let waiter = wait ? TaskWaiter(root: root, command: "add") : nil
        // R4: any error from the mount fails the whole input with its
        // reason (MountFiles.add), and no id is printed.
        let added: [Int64]
        do { added = try MountFiles(path: root).add(text) } catch {
            throw ClientError("add: " + error.message).exit()
        }
        FileHandle.standardOutput.write(Data(added.map { "\($0)\n" }.joined().utf8))
        guard let waiter else { return }
        do {
            throw ExitCode(try waiter.wait(for: added))
        } catch let error as ClientError { throw error.exit() }
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
}
