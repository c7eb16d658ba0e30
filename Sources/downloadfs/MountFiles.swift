import CLinux
import DownloadFSCore
import Foundation
import Glibc
import RPCCore

/// The mount's files as a client uses them: `add` and `ctl` here, and
/// aria2's door (`MountView`, R70), which does everything through them.
/// Every operation is a plain open, write or read of the mount's paths,
/// so whatever a client does, a shell can do.
///
/// A refused write is told in the mount's own words: the daemon writes
/// its reason to `MOUNT/log` before it answers EINVAL, naming the thread
/// that wrote, and the error carries the line that names this one
/// (`RefusalLogLine`): not another client's, refused at the same moment.
/// Each operation writes, reads back and closes on the calling thread.
struct MountFiles: MountView {
    let path: String

    // MARK: - queue/new (R10, R12)

    func add(_ input: String) throws(MountViewError) -> [Int64] {
        let file = path + "/queue/new"
        let fd = open(file, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw MountViewError(code: errno, message: "cannot open \(file): \(Self.reason(errno))") }
        // Any error from the mount — on write, on reading the ids back (the
        // daemon adds the last URL then, and a full catalog answers EIO), or
        // on close — fails the whole input, with its reason.
        let ids: [UInt8]
        do {
            try Self.writeAll(Array(input.utf8), to: fd)
            ids = try Self.readAll(fd)
        } catch {
            _ = close(fd)  // the input already failed; what close says adds nothing
            throw inputFailure(error.code)
        }
        guard close(fd) == 0 else { throw inputFailure(errno) }
        return String(decoding: ids, as: UTF8.self).split(separator: "\n").compactMap { Int64($0) }
    }

    /// Why the mount refused or failed an input: for EINVAL and EIO (the
    /// errors the daemon logs) its own sentence from MOUNT/log, else the errno's.
    private func inputFailure(_ code: Int32) -> MountViewError {
        let verb = code == EINVAL ? "refused" : "could not add"
        guard code == EINVAL || code == EIO, let line = ownLogLine(from: "queue/new") else {
            return MountViewError(code: code, message: "the mount \(verb) the input: \(Self.reason(code))")
        }
        return MountViewError(code: code, message: "the mount \(verb) the input (\(Self.reason(code))): \(line)")
    }

    /// The newest MOUNT/log line from `source` about this thread's write,
    /// without its time (`RefusalLogLine`).
    private func ownLogLine(from source: String) -> String? {
        guard let log = try? String(contentsOfFile: path + "/log", encoding: .utf8) else { return nil }
        return RefusalLogLine.newest(from: source, writer: clinux_thread_id(), inLog: log)
    }

    // MARK: - ctl (R30, R31)

    func control(_ id: Int64, _ command: String) throws(MountViewError) {
        try send(command, to: .task(id))
    }

    func controlGlobal(_ command: String) throws(MountViewError) {
        try send(command, to: .all)
    }

    /// One write of `COMMAND\n`, as `echo` makes it; a refusal carries the
    /// reason the mount logged for it.
    func send(_ command: String, to target: ControlTarget) throws(MountViewError) {
        let file = path + "/" + target.file
        let fd = open(file, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT, case .task(let id) = target {
                throw MountViewError(code: code, message: "no task \(id) in \(path)")
            }
            throw MountViewError(code: code, message: "cannot open \(file): \(Self.reason(code))")
        }
        defer { close(fd) }
        do { try Self.writeAll(Array((command + "\n").utf8), to: fd) } catch {
            guard error.code == EINVAL else {
                throw MountViewError(code: error.code, message: "\(file) did not take \"\(command)\": \(Self.reason(error.code))")
            }
            let log = (try? String(contentsOfFile: path + "/log", encoding: .utf8)) ?? ""
            let reason = target.refusal(inLog: log, writer: clinux_thread_id()) ?? Self.reason(error.code)
            throw MountViewError(code: error.code, message: "the mount refused \"\(command)\": \(reason)")
        }
    }

    // MARK: - the rest (R20, R21, R32)

    func remove(_ id: Int64) throws(MountViewError) {
        let directory = path + "/queue/\(id)"
        guard rmdir(directory) == 0 else {
            throw MountViewError(code: errno, message: "cannot remove \(directory): \(Self.reason(errno))")
        }
    }

    /// The status, mirrors and ranges in one request (`TaskReportAttribute`)
    /// when more than the status is asked; each of its own attribute where
    /// that is absent (an older daemon; more than 64 KiB in all).
    func task(_ id: Int64, mirrors: Bool, ranges: Bool) throws(MountViewError) -> MountedTask? {
        if mirrors || ranges {
            switch try attribute(TaskDirectoryNames.reportAttribute, of: id, what: "the task") {
            case .value(let value):
                if let parts = TaskReportAttribute.parts(of: value) {
                    return MountedTask(status: parts.status, mirrors: mirrors ? Self.lines(parts.mirrors) : [],
                                       ranges: ranges ? ByteRanges(encoded: parts.ranges) : nil)
                }
            case .gone: return nil
            case .absent: break
            }
        }
        guard let status = try status(id) else { return nil }
        return MountedTask(status: status, mirrors: mirrors ? try self.mirrors(id) : [],
                           ranges: ranges ? try self.ranges(id) : nil)
    }

    func place(_ id: Int64) throws(MountViewError) -> Int? {
        guard case .value(let text) = try attribute(TaskDirectoryNames.placeAttribute, of: id, what: "the place") else {
            return nil
        }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func waitingLine() throws(MountViewError) -> (ids: [Int64], more: Int)? {
        guard case .value(let text) = try attribute(WaitingLineAttribute.name, at: "queue", what: "the waiting line") else {
            return nil
        }
        return WaitingLineAttribute.parse(text)
    }

    private static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// The status through its extended attribute: one request to the
    /// daemon where a read takes four; a mount that does not answer the
    /// attribute (an older daemon) is read instead. Every attribute is asked
    /// of the task's directory, which answers its files' attributes: its
    /// mode is cached, so the kernel asks no `getattr` before each.
    private func status(_ id: Int64) throws(MountViewError) -> String? {
        switch try attribute(TaskDirectoryNames.statusAttribute, of: id, what: "the status") {
        case .value(let text): return text
        case .gone: return nil
        case .absent: return try readIfThere("queue/\(id)/status")
        }
    }

    private func mirrors(_ id: Int64) throws(MountViewError) -> [String] {
        guard case .value(let lines) = try attribute(TaskDirectoryNames.mirrorsAttribute, of: id, what: "the mirrors") else {
            return []
        }
        return Self.lines(lines)
    }

    private func ranges(_ id: Int64) throws(MountViewError) -> ByteRanges? {
        switch try attribute(TaskDirectoryNames.rangesAttribute, of: id, what: "the byte ranges") {
        case .value(let text): return ByteRanges(encoded: text)
        case .gone, .absent: return nil
        }
    }

    /// What a `getxattr` of a task's directory found.
    private enum Attribute {
        case value(String)
        /// The task is gone.
        case gone
        /// No such attribute (a task without mirrors; a daemon from before
        /// the directory answered them), or one over 64 KiB, the most the
        /// kernel passes (`XATTR_SIZE_MAX`): a status is then read from its
        /// file; mirrors and ranges go unshown.
        case absent
    }

    /// The attribute `name` of task `id`'s directory, in one request.
    private func attribute(_ name: String, of id: Int64, what: String) throws(MountViewError) -> Attribute {
        try attribute(name, at: "queue/\(id)", what: what)
    }

    private func attribute(_ name: String, at relative: String, what: String) throws(MountViewError) -> Attribute {
        let file = path + "/" + relative
        // Not zeroed: a status is a few hundred bytes of a 64 KiB buffer.
        var code: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: 65536) { buffer, count in
            let n = clinux_get_xattr(file, name, buffer.baseAddress, buffer.count)
            if n < 0 { code = errno }
            count = max(0, n)
        }
        if code == 0 { return .value(String(decoding: bytes, as: UTF8.self)) }
        switch code {
        case ENOENT: return .gone
        case ENODATA, ENOTSUP, ERANGE: return .absent
        default: throw MountViewError(code: code, message: "cannot read \(what) of \(file): \(Self.reason(code))")
        }
    }

    func settings(_ id: Int64) throws(MountViewError) -> String? { try readIfThere("queue/\(id)/ctl") }

    func globalSettings() throws(MountViewError) -> String { try read("ctl") }
    func table() throws(MountViewError) -> String { try read("status") }

    func forEachTableLine(_ body: (Substring) -> Bool) throws(MountViewError) {
        let file = path + "/status"
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MountViewError(code: errno, message: "cannot read \(file): \(Self.reason(errno))") }
        defer { close(fd) }
        do { try LineReader.forEachLine(of: fd, body) } catch {
            throw MountViewError(code: error.code, message: "cannot read \(file): \(Self.reason(error.code))")
        }
    }

    /// A file of the mount, nil when it (its task) is gone.
    private func readIfThere(_ relative: String) throws(MountViewError) -> String? {
        do { return try read(relative) } catch where error.code == ENOENT { return nil }
    }

    private func read(_ relative: String) throws(MountViewError) -> String {
        let file = path + "/" + relative
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MountViewError(code: errno, message: "cannot read \(file): \(Self.reason(errno))") }
        defer { close(fd) }
        do { return String(decoding: try Self.readAll(fd), as: UTF8.self) } catch {
            throw MountViewError(code: error.code, message: "cannot read \(file): \(Self.reason(error.code))")
        }
    }

    // MARK: - bytes

    /// A system call's errno.
    private struct Failure: Error {
        let code: Int32
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            written += n
        }
    }

    /// Everything from offset 0 to the end (`pread`, so a handle that was
    /// written reads its answer from the start, R12). A read shorter than
    /// asked is the end, as a regular file's is: that saves the mount the
    /// round trip of an empty read to say so (`tellStatus` reads a status
    /// in one).
    private static func readAll(_ fd: Int32) throws(Failure) -> [UInt8] {
        let chunk = 65536
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var out = [UInt8]()
        while true {
            let n = pread(fd, buffer, chunk, off_t(out.count))
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            out += UnsafeRawBufferPointer(start: buffer, count: n)
            if n < chunk { return out }
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
