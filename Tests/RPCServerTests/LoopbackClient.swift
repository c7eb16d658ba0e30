#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A blocking TCP client on 127.0.0.1 for the RPC server's tests: raw
/// bytes, so the tests see exactly what is on the wire (status lines,
/// headers, WebSocket frames). Every receive has a deadline (SO_RCVTIMEO),
/// so a server that never answers fails a test instead of hanging it.
final class LoopbackClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An HTTP response as read off the socket.
    struct Response {
        let status: Int
        /// Header names lowercased.
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int, timeoutSeconds: Int = 5, host: String = "127.0.0.1") throws {
        let isIPv6 = host.contains(":")
        fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = Self.connect(fd, to: address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = Self.connect(fd, to: address)
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to \(host) port \(port): \(message)")
        }
    }

    private static func connect<Address>(_ fd: Int32, to address: Address) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    deinit {
        Glibc.close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads more bytes; throws at the deadline, returns false at EOF.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        if count == 0 { return false }
        buffered += chunk[..<count]
        return true
    }

    /// Bytes until the peer closes (or the deadline passes).
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffered = [] }
        return buffered
    }

    /// True when the peer closed the connection (EOF) before the deadline.
    func isClosedByPeer() -> Bool {
        buffered = []
        while true {
            do {
                if try !fill() { return true }
                buffered = []
            } catch {
                // ECONNRESET is a close too; a timeout is not.
                return errno == ECONNRESET
            }
        }
    }

    func readResponse() throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            if let found = Self.find(separator, in: buffered) {
                headerEnd = found
            } else if try !fill() {
                throw Failure(description: "closed before a response; got \(String(decoding: buffered, as: UTF8.self))")
            }
        }
        let headText = String(decoding: buffered[..<headerEnd!], as: UTF8.self)
        buffered.removeFirst(headerEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let status = Int(statusLine.split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if status / 100 == 1 {
            // An informational reply (100 Continue, 101): no body.
            return Response(status: status, headers: headers, body: [])
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffered.count < length {
            guard try fill() else { throw Failure(description: "closed inside a body") }
        }
        let body = Array(buffered[..<length])
        buffered.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    // MARK: WebSocket

    /// Opens a WebSocket at `path` and returns the server's 101 (or refusal).
    func webSocketHandshake(path: String = "/jsonrpc", extraHeaders: String = "") throws -> Response {
        try send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n")
        return try readResponse()
    }

    /// Sends one masked frame, as a client must.
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    /// Reads one (unmasked, server-sent) frame.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8]) {
        func need(_ count: Int) throws {
            while buffered.count < count {
                guard try fill() else { throw Failure(description: "closed inside a frame") }
            }
        }
        try need(2)
        let opcode = buffered[0] & 0x0F
        var length = Int(buffered[1] & 0x7F)
        var headerSize = 2
        if length == 126 {
            try need(4)
            length = Int(buffered[2]) << 8 | Int(buffered[3])
            headerSize = 4
        } else if length == 127 {
            try need(10)
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffered[$1]) }
            headerSize = 10
        }
        try need(headerSize + length)
        let payload = Array(buffered[headerSize..<(headerSize + length)])
        buffered.removeFirst(headerSize + length)
        return (opcode, payload)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
