import NIOHTTP1
import RPCCore

/// The HTTP status aria2c puts around a JSON-RPC reply.
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

    init(_ reply: Aria2Reply) {
        unauthorized = reply.unauthorized
        keepAlive = reply.error == nil
        switch reply.error?.code {
        case nil: status = .ok
        case 1, -32600: status = .badRequest
        case -32601: status = .notFound
        default: status = .internalServerError
        }
    }
}
