import Catalog
import DownloadFSCore
import Foundation
import FuseKit

/// An open `queue/new` or drop-in file (R10–R14): a streaming parser fed
/// by each write, and the ids this handle's writes added (R12).
///
/// The input ends (R11: a final line without a newline is taken, the last
/// URL's options end) when the process that opened the file closes it,
/// and its error is what that close returns; a close by any other process
/// — a child that inherited the descriptor, such as a `$(…)` inside a
/// `{ …; } > queue/new` block — is not the end of it. Whatever is still
/// pending when the last descriptor goes (the opener closed before a
/// child wrote) is ended then, a refusal only logged.
///
/// `lock` serialises this handle's writes, reads and closes (one parser);
/// it is held while the loop commits what they add, which is no I/O of
/// this thread's, and other handles never wait for it.
final class InputHandle: FileReader, FileWriter, FileFlusher, FileReleaser, @unchecked Sendable {
    private let context: NodeContext
    /// The drop-in file this handle made (R14), nil for `queue/new`.
    private let dropIn: (name: String, number: UInt64)?
    private let lock = NSLock()
    private var parser: InputParser
    /// What the parser reads `load-cookies=` files with.
    private let inputContext: InputContext
    private var ids: [Int64] = []
    /// The process that opened this file: its closes end the input.
    private let opener: pid_t

    init(context: NodeContext, dropIn: (name: String, number: UInt64)?, opener: RequestCaller) {
        self.context = context
        self.dropIn = dropIn
        self.opener = opener.process
        inputContext = CookieFileReader(mountpoint: MountPreflight.absolute(context.loop.configuration.mountpoint)).context
        parser = InputParser(context: inputContext)
    }

    /// How log lines name this input.
    private var source: String { dropIn.map { "queue/\($0.name)" } ?? "queue/new" }

    private func add(_ entries: [InputEntry]) throws(CatalogError) -> [Int64] {
        try context.loop.client.add(entries)
    }

    /// R12: the ids added (or matched, R13) so far, one per line. Reading
    /// ends the pending URL's options: it is added first.
    func read(size: Int, offset: Int64, reply: ReadReply) {
        lock.lock()
        let pending = parser.takePending()
        do {
            ids += try add(pending)
        } catch {
            // The URL is dropped, not kept for close: the reader was told it failed (R4).
            lock.unlock()
            let writer = RefusalLogLine.tag(pid: reply.caller.pid)
            context.log.daemon("\(source): could not add\(writer), nothing added from the last URL: \(error.message)",
                               level: .error)
            reply.error(.io)
            return
        }
        let text = Array(ids.map { "\($0)\n" }.joined().utf8)
        lock.unlock()
        guard offset < text.count else { reply.bytes([]); return }
        let end = min(text.count, Int(offset) + size)
        _ = text[Int(offset)..<end].withUnsafeBytes { reply.bytes($0) }
    }

    func write(_ data: UnsafeRawBufferPointer, offset: Int64, caller: RequestCaller) throws(Errno) -> Int {
        lock.lock()
        defer { lock.unlock() }
        // The parser is changed in place (a copy per write made many small
        // writes quadratic, R11); a refusal leaves it as it was.
        let entries: [InputEntry]
        do { entries = try parser.feed(Array(data)) } catch {
            let writer = RefusalLogLine.tag(pid: caller.pid)
            context.log.daemon("\(source): refused a write\(writer), nothing added: \(error.message)", level: .warning)
            throw .invalid
        }
        do { ids += try add(entries) } catch {
            parser.undoLast()
            let writer = RefusalLogLine.tag(pid: caller.pid)
            context.log.daemon("\(source): could not add\(writer), nothing added from that write: \(error.message)",
                               level: .error)
            throw .io
        }
        return data.count
    }

    /// The opener's close(2) ends the stream so far: a final line without a
    /// newline is taken now (R11), and its error is what close returns.
    /// Another process's close is its copy of the descriptor going, not the
    /// end of the input: the opener may still write the URL's options.
    func flush(caller: RequestCaller) throws(Errno) {
        guard caller.process == opener else { return }
        try endInput(writer: RefusalLogLine.tag(pid: caller.pid))
    }

    /// Ends the input: takes the final line and the last URL (R11).
    /// `writer` names who closed it in a refusal's log line.
    private func endInput(writer: String) throws(Errno) {
        lock.lock()
        defer { lock.unlock() }
        guard !parser.isIdle else { return }
        let entries: [InputEntry]
        do { entries = try parser.finish() } catch {
            // The URLs accepted before the bad final line still count (their
            // options ended); one whose option line it was is already dropped.
            let accepted = parser.takePending()
            parser = InputParser(context: inputContext)
            context.log.daemon("\(source): refused the last line\(writer), nothing added from it: \(error.message)",
                               level: .warning)
            if let added = try? add(accepted) { ids += added }
            throw .invalid
        }
        do { ids += try add(entries) } catch {
            parser.undoLast()
            context.log.daemon("\(source): could not add\(writer), nothing added at close: \(error.message)", level: .error)
            throw .io
        }
    }

    /// A drop-in file does not stay in `queue/` (R14). Its name was made by
    /// `create`, which told inotify watchers (a file manager) it appeared;
    /// they are told it went.
    ///
    /// First, what the last descriptor leaves pending is ended (no one is
    /// left to tell of a refusal: the log says it).
    func release() {
        try? endInput(writer: "")
        guard let dropIn else { return }
        if context.dropIns.remove(dropIn.name, number: dropIn.number) {
            context.notifier?.post(.deleted(parent: NodeID.queue.inode, child: NodeID.dropIn(dropIn.number).inode,
                                            name: dropIn.name))
        }
    }
}
