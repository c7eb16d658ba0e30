import Foundation
import NIOHTTP1

/// The HTTP status aria2c puts around a JSON-RPC reply, read back from the
/// reply itself (the dispatcher returns bytes only).
///
/// aria2c (`HttpServerBodyCommand::sendJsonRpcResponse`) answers a single
/// call's error with 400 (code 1, -32600), 404 (-32601) or 500 (anything
/// else, -32700 included) and closes the connection; a batch is always 200.
/// An "Unauthorized" reply, single or in a batch, is held back one second
/// so a client guessing secrets gets one guess per second per connection.
struct RPCReplyStatus: Equatable {
    var status: HTTPResponseStatus
    var keepAlive: Bool
    var unauthorized: Bool

    /// Error replies are short; a reply longer than this is a result and is
    /// not parsed again (a `tellWaiting` over 100,000 tasks is megabytes).
    static let peekLimit = 64 * 1024

    init(reply: [UInt8]) {
        status = .ok
        keepAlive = true
        unauthorized = false
        guard reply.count <= Self.peekLimit, Self.mayHoldError(reply),
              let first = reply.first(where: { !Self.isSpace($0) }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
              let json = try? JSONSerialization.jsonObject(with: Data(reply))
        else { return }
        if let single = json as? [String: Any] {
            guard let (code, message) = Self.error(of: single) else { return }
            keepAlive = false
            unauthorized = Self.isUnauthorized(code, message)
            switch code {
            case 1, -32600: status = .badRequest
            case -32601: status = .notFound
            default: status = .internalServerError
            }
        } else if let batch = json as? [Any] {
            unauthorized = batch.contains { element in
                guard let call = element as? [String: Any], let (code, message) = Self.error(of: call) else {
                    return false
                }
                return Self.isUnauthorized(code, message)
            }
        }
    }

    /// Whether the reply may hold an error object: only if a key `"error"`
    /// appears (the word, quoted and unescaped, then a colon). A result
    /// never has one (aria2's keys are `errorCode`, `errorMessage`, and
    /// the status word "error" is a value), so it needs no second parse.
    private static func mayHoldError(_ reply: [UInt8]) -> Bool {
        let word = Array(#""error""#.utf8)
        var start = 0
        while start + word.count <= reply.count {
            defer { start += 1 }
            guard reply[start] == word[0], reply[start..<start + word.count].elementsEqual(word),
                  start == 0 || reply[start - 1] != UInt8(ascii: "\\") else { continue }
            var next = start + word.count
            while next < reply.count, isSpace(reply[next]) { next += 1 }
            if next < reply.count, reply[next] == UInt8(ascii: ":") { return true }
        }
        return false
    }

    private static func error(of reply: [String: Any]) -> (Int, String)? {
        guard let error = reply["error"] as? [String: Any], let code = error["code"] as? Int else { return nil }
        return (code, error["message"] as? String ?? "")
    }

    private static func isUnauthorized(_ code: Int, _ message: String) -> Bool {
        code == 1 && message == "Unauthorized"
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
