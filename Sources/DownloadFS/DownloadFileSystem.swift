import Catalog
import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Glibc
import Synchronization

/// The downloadfs tree (SPEC §2) on top of FuseKit: maps each kernel
/// operation on a `NodeID` to a read of the task table or a call on the
/// controller. Errors become errno here and nowhere else.
final class DownloadFileSystem: FileSystemOperations, @unchecked Sendable {
    private let controller: TaskLoop
    private let state: StateDirectory
    private let uid = getuid()
    private let gid = getgid()
    private let mountedAt: timespec
    private let handles = Mutex<(next: UInt64, open: [UInt64: OpenFile])>((1, [:]))
    private let dropIns = Mutex<(next: UInt64, byName: [String: UInt64])>((1, [:]))

    private var table: TaskTable { controller.table }

    init(controller: TaskLoop) {
        self.controller = controller
        self.state = controller.state
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        mountedAt = now
    }

    // MARK: - attributes

    private func time(_ date: Date?) -> timespec {
        guard let date else { return mountedAt }
        let seconds = date.timeIntervalSince1970
        return timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    }

    private func attributes(_ node: NodeID, _ kind: FileAttributes.Kind, _ permissions: mode_t,
                            size: Int64 = 0, modified: timespec? = nil, timeout: Double = 0) -> FileAttributes {
        FileAttributes(inode: node.inode, kind: kind, permissions: permissions, size: size,
                       modified: modified ?? mountedAt, uid: uid, gid: gid, timeout: timeout)
    }

    private func task(_ id: Int64) throws(Errno) -> TaskEntry {
        guard let entry = table.entry(id) else { throw .noEntry }
        return entry
    }

    /// Bytes a reader may see of a task's data (R23: never more than arrived).
    private func visibleSize(_ entry: TaskEntry) -> Int64 {
        switch entry.record.state {
        case .downloading: return max(0, entry.live.bytes)
        default: return entry.record.downloaded
        }
    }

    private func attributes(of node: NodeID) throws(Errno) -> FileAttributes {
        let now = MonotonicClock.now()
        switch node {
        case .root, .queue, .files:
            return attributes(node, .directory, 0o755, timeout: 1)
        case .rootStatus:
            return attributes(node, .regular, 0o444, size: Int64(rootStatus(now: now).count))
        case .rootCtl:
            return attributes(node, .regular, 0o200)
        case .rootLog:
            return attributes(node, .regular, 0o444, size: Int64(controller.log.daemonSize()))
        case .queueNew:
            return attributes(node, .regular, 0o644)
        case .dropIn:
            return attributes(node, .regular, 0o644)
        case .taskDir(let id):
            let entry = try task(id)
            return attributes(node, .directory, 0o755, modified: time(entry.record.addedAt))
        case .taskStatus(let id):
            let entry = try task(id)
            return attributes(node, .regular, 0o444, size: Int64(status(entry, now: now).count),
                              modified: time(entry.record.addedAt))
        case .taskURL(let id):
            let entry = try task(id)
            return attributes(node, .regular, 0o444, size: Int64(shownURL(entry).utf8.count),
                              modified: time(entry.record.addedAt))
        case .taskCtl(let id):
            let entry = try task(id)
            return attributes(node, .regular, 0o200, modified: time(entry.record.addedAt))
        case .taskLog(let id):
            let entry = try task(id)
            return attributes(node, .regular, 0o444, size: Int64(controller.log.taskText(id).utf8.count),
                              modified: time(entry.record.addedAt))
        case .taskWait(let id):
            let entry = try task(id)
            return attributes(node, .regular, 0o444, modified: time(entry.record.addedAt))
        case .taskData(let id):
            let entry = try task(id)
            if entry.record.state == .completed {
                return attributes(node, .regular, 0o444, size: entry.record.downloaded,
                                  modified: time(finishedTime(entry.record)), timeout: 1)
            }
            return attributes(node, .regular, 0o444, size: visibleSize(entry), modified: time(entry.record.addedAt))
        case .finished(let id):
            let entry = try task(id)
            guard entry.record.state == .completed else { throw .noEntry }
            return attributes(node, .regular, 0o444, size: entry.record.downloaded,
                              modified: time(finishedTime(entry.record)), timeout: 1)
        }
    }

    /// The `url` file: the URL as given, its password shown as `***` (R6).
    private func shownURL(_ entry: TaskEntry) -> String {
        URLNormalizer.maskingPassword(entry.record.url) + "\n"
    }

    /// R40: the server's Last-Modified, else the completion time.
    private func finishedTime(_ record: DownloadTask) -> Date? {
        record.lastModified.flatMap(HeaderValue.httpDate) ?? record.completedAt
    }

    private func status(_ entry: TaskEntry, now: Double) -> [UInt8] {
        Array(StatusRenderer.render(TaskStatusView(entry, now: now), now: Date()).utf8)
    }

    private func rootStatus(now: Double) -> [UInt8] {
        Array(StatusTable.render(table.all().map { TaskStatusView($0, now: now) }, now: Date()).utf8)
    }

    // MARK: - FileSystemOperations

    func lookup(parent: UInt64, name: String) throws(Errno) -> FileAttributes {
        guard let node = NodeID(inode: parent) else { throw .noEntry }
        return try attributes(of: try child(of: node, named: name))
    }

    private func child(of parent: NodeID, named name: String) throws(Errno) -> NodeID {
        switch parent {
        case .root:
            switch name {
            case "queue": return .queue
            case "files": return .files
            case "status": return .rootStatus
            case "ctl": return .rootCtl
            case "log": return .rootLog
            default: throw .noEntry
            }
        case .queue:
            if name == "new" { return .queueNew }
            if let id = Int64(name), String(id) == name, table.entry(id) != nil { return .taskDir(id) }
            if let n = dropIns.withLock({ $0.byName[name] }) { return .dropIn(n) }
            throw .noEntry
        case .taskDir(let id):
            let entry = try task(id)
            switch name {
            case "status": return .taskStatus(id)
            case "url": return .taskURL(id)
            case "ctl": return .taskCtl(id)
            case "log": return .taskLog(id)
            case "wait": return .taskWait(id)
            case entry.record.name: return .taskData(id)
            default: throw .noEntry
            }
        case .files:
            guard let entry = table.task(named: name), entry.record.state == .completed else { throw .noEntry }
            return .finished(entry.id)
        default:
            throw .notDirectory
        }
    }

    func attributes(_ inode: UInt64) throws(Errno) -> FileAttributes {
        guard let node = NodeID(inode: inode) else { throw .noEntry }
        return try attributes(of: node)
    }

    /// R6: mode, owner and times are the mount's, never changed, so chmod,
    /// chown and touch are EACCES everywhere — answering 0 and changing
    /// nothing would tell the user it worked. The one change accepted is a
    /// cut to size 0 (`O_TRUNC`, as in `echo URL > queue/new`) of the files
    /// whose writes are commands, not content; it changes nothing either.
    func setAttributes(_ inode: UInt64, changes: AttributeChanges, handle: UInt64?) throws(Errno) -> FileAttributes {
        guard let node = NodeID(inode: inode) else { throw .noEntry }
        if changes.changesMetadata { throw .accessDenied }
        guard let size = changes.size else { return try attributes(of: node) }
        switch node {
        case .queueNew, .dropIn, .rootCtl, .taskCtl:
            if size != 0 { throw .accessDenied }
            return try attributes(of: node)
        default:
            throw .accessDenied
        }
    }

    func list(_ inode: UInt64) throws(Errno) -> [DirectoryEntry] {
        guard let node = NodeID(inode: inode) else { throw .noEntry }
        var entries = [DirectoryEntry(name: ".", inode: inode, isDirectory: true),
                       DirectoryEntry(name: "..", inode: NodeID.root.inode, isDirectory: true)]
        func file(_ name: String, _ node: NodeID) { entries.append(DirectoryEntry(name: name, inode: node.inode, isDirectory: false)) }
        switch node {
        case .root:
            entries.append(DirectoryEntry(name: "queue", inode: NodeID.queue.inode, isDirectory: true))
            entries.append(DirectoryEntry(name: "files", inode: NodeID.files.inode, isDirectory: true))
            file("status", .rootStatus)
            file("ctl", .rootCtl)
            file("log", .rootLog)
        case .queue:
            file("new", .queueNew)
            for id in table.ids() {
                entries.append(DirectoryEntry(name: String(id), inode: NodeID.taskDir(id).inode, isDirectory: true))
            }
        case .taskDir(let id):
            let entry = try task(id)
            file("status", .taskStatus(id))
            file("url", .taskURL(id))
            file("ctl", .taskCtl(id))
            file("log", .taskLog(id))
            file("wait", .taskWait(id))
            file(entry.record.name, .taskData(id))
        case .files:
            for entry in table.all() where entry.record.state == .completed {
                file(entry.record.name, .finished(entry.id))
            }
        default:
            throw .notDirectory
        }
        return entries
    }

    private func register(_ file: OpenFile) -> UInt64 {
        handles.withLock { h in
            let handle = h.next
            h.next += 1
            h.open[handle] = file
            return handle
        }
    }

    private func openFile(_ handle: UInt64) throws(Errno) -> OpenFile {
        guard let file = handles.withLock({ $0.open[handle] }) else { throw .badHandle }
        return file
    }

    func open(_ inode: UInt64, flags: Int32) throws(Errno) -> OpenedFile {
        guard let node = NodeID(inode: inode) else { throw .noEntry }
        let mode = flags & O_ACCMODE
        let reads = mode == O_RDONLY || mode == O_RDWR
        let writes = mode == O_WRONLY || mode == O_RDWR
        let now = MonotonicClock.now()
        // Checked here as well as by default_permissions: root bypasses mode bits.
        func readOnly() throws(Errno) {
            if writes || flags & O_TRUNC != 0 { throw .accessDenied }
        }
        switch node {
        case .root, .queue, .files, .taskDir:
            throw .isDirectory
        case .queueNew:
            return OpenedFile(handle: register(.input(InputSession())), directIO: true)
        case .dropIn:
            throw .accessDenied
        case .rootCtl:
            if reads { throw .accessDenied }
            return OpenedFile(handle: register(.rootControl), directIO: true)
        case .taskCtl(let id):
            _ = try task(id)
            if reads { throw .accessDenied }
            return OpenedFile(handle: register(.taskControl(id)), directIO: true)
        case .rootStatus:
            try readOnly()
            return OpenedFile(handle: register(.snapshot(rootStatus(now: now))), directIO: true)
        case .rootLog:
            try readOnly()
            return OpenedFile(handle: register(.snapshot(Array(controller.log.daemonText().utf8))), directIO: true)
        case .taskStatus(let id):
            try readOnly()
            return OpenedFile(handle: register(.snapshot(status(try task(id), now: now))), directIO: true)
        case .taskURL(let id):
            try readOnly()
            return OpenedFile(handle: register(.snapshot(Array(shownURL(try task(id)).utf8))), directIO: true)
        case .taskLog(let id):
            try readOnly()
            _ = try task(id)
            return OpenedFile(handle: register(.snapshot(Array(controller.log.taskText(id).utf8))), directIO: true)
        case .taskWait(let id):
            try readOnly()
            _ = try task(id)
            return OpenedFile(handle: register(.wait(id)), directIO: true)
        case .taskData(let id), .finished(let id):
            try readOnly()
            let entry = try task(id)
            if case .finished = node, entry.record.state != .completed { throw .noEntry }
            let fd = openData(entry)
            let completed = entry.record.state == .completed
            if completed && fd < 0 { throw .io }
            // Finished files are immutable: let the page cache keep them (R40
            // speed); growing ones must reach us on every read (R23).
            return OpenedFile(handle: register(.data(id: id, fd: fd)), directIO: !completed, keepCache: completed)
        }
    }

    private func openData(_ entry: TaskEntry) -> Int32 {
        let path = entry.record.state == .completed ? state.file(entry.record.name) : state.partial(entry.id)
        return Glibc.open(path, O_RDONLY | O_CLOEXEC)
    }

    func read(_ inode: UInt64, handle: UInt64, size: Int, offset: Int64, reply: ReadReply) {
        let file: OpenFile
        do { file = try openFile(handle) } catch { reply.error(error); return }
        switch file {
        case .snapshot(let bytes):
            serve(bytes, size: size, offset: offset, reply: reply)
        case .input(let session):
            session.lock.lock()
            let pending = session.parser.takePending()
            var ids = session.ids
            do {
                ids += try controller.add(pending)
                session.ids = ids
            } catch {
                // The URL is dropped, not kept for close: the reader was told it failed (R4).
                session.lock.unlock()
                controller.log.daemon("\(source(session)): could not add, nothing added from the last URL: \(error.message)", level: .error)
                reply.error(.io)
                return
            }
            session.lock.unlock()
            serve(Array(ids.map { "\($0)\n" }.joined().utf8), size: size, offset: offset, reply: reply)
        case .wait(let id):
            guard offset == 0 else { reply.bytes([]); return }
            guard let entry = table.entry(id) else { reply.bytes(Array("failed: task removed\n".utf8)); return }
            switch entry.record.state {
            case .completed: reply.bytes(Array("completed\n".utf8))
            case .failed: reply.bytes(Array("failed: \(entry.record.error ?? "unknown error")\n".utf8))
            default:
                controller.waits.park(id, reply)
                // The task may have ended between the check and the park.
                if let now = table.entry(id), now.record.state.isFinished {
                    controller.waits.wake(id, now.record.state == .completed
                        ? "completed\n" : "failed: \(now.record.error ?? "unknown error")\n")
                } else if table.entry(id) == nil {
                    controller.waits.wake(id, "failed: task removed\n")
                }
            }
        case .data(let id, var fd):
            guard let entry = table.entry(id) else { reply.error(.noEntry); return }
            if fd < 0 {
                fd = openData(entry)
                if fd >= 0 {
                    handles.withLock { $0.open[handle] = .data(id: id, fd: fd) }
                }
            }
            let visible = entry.record.state == .completed ? entry.record.downloaded : visibleSize(entry)
            guard fd >= 0, offset < visible else { reply.bytes([]); return }
            reply.file(fd, offset: offset, size: min(size, Int(visible - offset)))
        case .taskControl, .rootControl:
            reply.error(.accessDenied)
        }
    }

    private func serve(_ bytes: [UInt8], size: Int, offset: Int64, reply: ReadReply) {
        guard offset < bytes.count else { reply.bytes([]); return }
        let end = min(bytes.count, Int(offset) + size)
        bytes[Int(offset)..<end].withUnsafeBytes { reply.bytes($0) }
    }

    func write(_ inode: UInt64, handle: UInt64, data: UnsafeRawBufferPointer, offset: Int64) throws(Errno) -> Int {
        switch try openFile(handle) {
        case .input(let session):
            session.lock.lock()
            defer { session.lock.unlock() }
            // The parser is changed in place (a copy per write made many small
            // writes quadratic, R11); a refusal leaves it as it was.
            let entries: [InputEntry]
            do { entries = try session.parser.feed(Array(data)) } catch {
                controller.log.daemon("\(source(session)): refused a write, nothing added: \(error.message)", level: .warning)
                throw .invalid
            }
            do { session.ids += try controller.add(entries) } catch {
                session.parser.undoLast()
                controller.log.daemon("\(source(session)): could not add, nothing added from that write: \(error.message)", level: .error)
                throw .io
            }
            return data.count
        case .taskControl(let id):
            let text = String(decoding: data, as: UTF8.self)
            do throws(ControlCommandError) {
                switch ControlCommand.parseTask(text) {
                case .success(let command): try controller.control(id, command)
                case .failure(let error): throw error
                }
            } catch {
                controller.log.daemon("queue/\(id)/ctl: refused: \(error.message)", level: .warning)
                throw .invalid
            }
            return data.count
        case .rootControl:
            let text = String(decoding: data, as: UTF8.self)
            do throws(ControlCommandError) {
                switch ControlCommand.parseGlobal(text) {
                case .success(let command): try controller.controlGlobal(command)
                case .failure(let error): throw error
                }
            } catch {
                controller.log.daemon("ctl: refused: \(error.message)", level: .warning)
                throw .invalid
            }
            return data.count
        default:
            throw .badHandle
        }
    }

    private func source(_ session: InputSession) -> String {
        session.dropInName.map { "queue/\($0)" } ?? "queue/new"
    }

    func flush(_ inode: UInt64, handle: UInt64) throws(Errno) {
        guard case .input(let session) = try openFile(handle) else { return }
        session.lock.lock()
        defer { session.lock.unlock() }
        // Each close(2) ends the stream so far: a final line without a newline
        // is taken now (R11), and its error is what close returns.
        let entries: [InputEntry]
        do { entries = try session.parser.finish() } catch {
            // The URLs accepted before the bad final line still count (their
            // options ended); one whose option line it was is already dropped.
            let accepted = session.parser.takePending()
            session.parser = InputParser()
            controller.log.daemon("\(source(session)): refused the last line, nothing added from it: \(error.message)", level: .warning)
            if let ids = try? controller.add(accepted) { session.ids += ids }
            throw .invalid
        }
        do { session.ids += try controller.add(entries) } catch {
            session.parser.undoLast()
            controller.log.daemon("\(source(session)): could not add, nothing added at close: \(error.message)", level: .error)
            throw .io
        }
    }

    func release(_ inode: UInt64, handle: UInt64) {
        guard let file = handles.withLock({ $0.open.removeValue(forKey: handle) }) else { return }
        switch file {
        case .data(_, let fd) where fd >= 0:
            close(fd)
        case .input(let session):
            if let name = session.dropInName {
                dropIns.withLock { _ = $0.byName.removeValue(forKey: name) }
            }
        default:
            break
        }
    }

    func create(parent: UInt64, name: String, flags: Int32) throws(Errno) -> (FileAttributes, OpenedFile) {
        guard NodeID(inode: parent) == .queue else { throw .accessDenied }
        if name == "new" || Int64(name) != nil { throw .exists }
        // R14: any other new file in queue/ is a one-shot queue/new.
        let n = try dropIns.withLock { d throws(Errno) -> UInt64 in
            if d.byName[name] != nil { throw .exists }
            let n = d.next
            d.next += 1
            d.byName[name] = n
            return n
        }
        let handle = register(.input(InputSession(dropInName: name)))
        return (attributes(.dropIn(n), .regular, 0o644), OpenedFile(handle: handle, directIO: true))
    }

    func unlink(parent: UInt64, name: String) throws(Errno) {
        guard let node = NodeID(inode: parent) else { throw .noEntry }
        switch node {
        case .taskDir(let id):
            // `rm -r queue/<id>` unlinks every entry before the rmdir that
            // cancels the task; those unlinks succeed and change nothing.
            _ = try task(id)
            _ = try child(of: node, named: name)
        case .files:
            guard let entry = table.task(named: name), entry.record.state == .completed else { throw .noEntry }
            do { try controller.remove(entry.id) } catch { throw .io }
        case .queue:
            if name == "new" { throw .notPermitted }
            if Int64(name) != nil, table.entry(Int64(name)!) != nil { throw .isDirectory }
            guard dropIns.withLock({ $0.byName.removeValue(forKey: name) }) != nil else { throw .noEntry }
        default:
            throw .notPermitted
        }
    }

    func removeDirectory(parent: UInt64, name: String) throws(Errno) {
        guard NodeID(inode: parent) == .queue else {
            throw NodeID(inode: parent) == .root ? .notPermitted : .notDirectory
        }
        guard let id = Int64(name), table.entry(id) != nil else {
            throw name == "new" ? .notDirectory : .noEntry
        }
        do { try controller.remove(id) } catch { throw .io }
    }

    func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32) throws(Errno) {
        guard NodeID(inode: parent) == .files else { throw .notPermitted }
        guard NodeID(inode: newParent) == .files else { throw .crossDevice }
        guard let entry = table.task(named: name), entry.record.state == .completed else { throw .noEntry }
        do { try controller.rename(entry.id, to: newName) } catch {
            switch error {
            case .missing: throw .noEntry
            case .badName: throw .invalid
            case .exists: throw .exists
            case .io(let code): throw Errno(code)
            }
        }
    }

    private static let xattrNames = ["user.xdg.origin.url", "user.mime_type"]

    private func completedRecord(_ inode: UInt64) throws(Errno) -> DownloadTask? {
        switch NodeID(inode: inode) {
        case .finished(let id), .taskData(let id):
            let entry = try task(id)
            return entry.record.state == .completed ? entry.record : nil
        case nil: throw .noEntry
        default: return nil
        }
    }

    func extendedAttribute(_ inode: UInt64, name: String) throws(Errno) -> [UInt8] {
        guard let record = try completedRecord(inode) else { throw .noAttribute }
        switch name {
        case "user.xdg.origin.url":
            return Array(URLNormalizer.strippingCredentials(record.url).utf8)
        case "user.mime_type":
            guard let type = record.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
                  !type.isEmpty else { throw .noAttribute }
            return Array(type.utf8)
        default:
            throw .noAttribute
        }
    }

    func extendedAttributeNames(_ inode: UInt64) throws(Errno) -> [String] {
        guard let record = try completedRecord(inode) else { return [] }
        return record.contentType == nil ? ["user.xdg.origin.url"] : Self.xattrNames
    }
}
