import Foundation
import Glibc

/// The read end of a pipe a child process reports on once: the daemon's
/// "ok" or error line to `mount` (`BackgroundLauncher`), the door's "ready"
/// or error line to `mount --rpc` (`RPCChild`).
enum ReportPipe {
    /// The first line `fd` gives within `seconds`, without its newline; nil
    /// when none came (the writer closed without one, or the time ran out).
    static func firstLine(of fd: Int32, within seconds: TimeInterval) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !bytes.contains(10) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        guard !bytes.isEmpty else { return nil }
        let line = bytes.split(separator: 10, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
