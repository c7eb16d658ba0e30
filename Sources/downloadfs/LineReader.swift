import Glibc

/// Reads a descriptor line by line as its bytes come: `MOUNT/status`
/// (whose first rows are wanted before the last are rendered) and
/// `MOUNT/events` (whose reads block until a line is there) both go
/// through it.
enum LineReader {
    /// A failed read's errno.
    struct Failure: Error {
        let code: Int32
    }

    /// Hands each line (without its newline) to `body` until `body`
    /// returns false or the file ends; a last line without a newline is
    /// handed on too. Returns whether the end was reached.
    @discardableResult
    static func forEachLine(of fd: Int32, _ body: (Substring) -> Bool) throws(Failure) -> Bool {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Failure(code: errno) }
            if n == 0 {
                if !pending.isEmpty { _ = body(Substring(String(decoding: pending, as: UTF8.self))) }
                return true
            }
            pending += buffer[..<n]
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                guard body(Substring(String(decoding: pending[start..<newline], as: UTF8.self))) else { return false }
                start = newline + 1
            }
            pending.removeFirst(start)
        }
    }
}
