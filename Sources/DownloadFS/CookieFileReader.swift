import DownloadFSCore
import Foundation
import Glibc

/// Reads the cookies.txt a `load-cookies=FILE` line names (R10), on the FUSE
/// thread that serves the write, for the parser (`InputContext`).
///
/// Only the mount's owner (or root) can write `queue/new` (R6), so the
/// daemon reads the file with the rights of the user who names it. What a
/// FUSE serving thread must not do is refused before it happens: a path
/// inside the mount itself (the open would wait for this daemon), a FIFO
/// or device (the open or read could block for ever: opened O_NONBLOCK
/// and refused unless a regular file), a file over 8 MiB.
struct CookieFileReader {
    static let maxBytes = 8 << 20

    /// The mountpoint, absolute.
    let mountpoint: String

    var context: InputContext {
        let reader = self
        return InputContext(readFile: { reader.read($0) }, now: { Int64(Date().timeIntervalSince1970) })
    }

    func read(_ path: String) -> Result<String, InputFileProblem> {
        func problem(_ reason: String) -> Result<String, InputFileProblem> { .failure(InputFileProblem(reason: reason)) }
        let absolute = MountPreflight.absolute(path)
        if absolute == mountpoint || absolute.hasPrefix(mountpoint + "/") {
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
