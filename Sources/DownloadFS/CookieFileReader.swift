import DownloadFSCore
import Foundation
import Glibc
import Threads

/// Reads the cookies.txt a `load-cookies=FILE` line names (R10), for the
/// parser (`InputContext`), while the FUSE thread that serves the write waits
/// at most `deadline`.
///
/// Only the mount's owner (or root) can write `queue/new` (R6), so the
/// daemon reads the file with the rights of the user who names it. What a
/// FUSE serving thread must not do is refused before it happens: a path
/// inside the mount itself, by its text or through links (a read of its
/// `wait` would wait for this daemon), a FIFO or device (the open or read
/// could block for ever: opened O_NONBLOCK and refused unless a regular
/// file), a file over 8 MiB. A file on a slow or hung filesystem (another
/// FUSE mount, a dead NFS server) is read on a thread of its own: the
/// kernel lets one write to `queue/new` in at a time, so a write that waited
/// for it would hold up every writer (R11).
struct CookieFileReader {
    static let maxBytes = 8 << 20
    static let deadlineSeconds = 2

    /// The mountpoint, absolute.
    let mountpoint: String

    var context: InputContext {
        let reader = self
        return InputContext(readFile: { reader.read($0) }, now: { Int64(Date().timeIntervalSince1970) })
    }

    func read(_ path: String) -> Result<String, InputFileProblem> {
        let reply = LoopReply<String, InputFileProblem>()
        // A thread of its own, not the shared pool's: one that hangs takes nothing from the daemon's other work.
        do {
            _ = try OSThread.start("downloadfs-cookies") { [self] in reply.answer(readNow(path)) }
        } catch {
            return .failure(InputFileProblem(reason: error.message))
        }
        // A read that never ends keeps its thread; the write goes on without it.
        return reply.wait(until: .now() + .seconds(Self.deadlineSeconds)) ?? .failure(InputFileProblem(
            reason: "not read within \(Self.deadlineSeconds) s (a slow or hung filesystem?); copy it to a local disk first"))
    }

    private func readNow(_ path: String) -> Result<String, InputFileProblem> {
        func problem(_ reason: String) -> Result<String, InputFileProblem> { .failure(InputFileProblem(reason: reason)) }
        let absolute = MountPreflight.absolute(path)
        let real = MountPreflight.linksFollowed(absolute) ?? absolute
        for candidate in [absolute, real] where candidate == mountpoint || candidate.hasPrefix(mountpoint + "/") {
            return problem("the file is inside this mount (copy it out first)")
        }
        let fd = open(absolute, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return problem(String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return problem(String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return problem("not a regular file") }
        guard st.st_size <= Self.maxBytes else { return problem("over 8 MiB, too big for a cookies.txt") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return problem(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            count += n
        }
        guard count <= Self.maxBytes else { return problem("over 8 MiB, too big for a cookies.txt") }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            return problem("not UTF-8 text (a cookies.txt is)")
        }
        return .success(text)
    }
}
