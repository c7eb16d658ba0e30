/// Why the RPC door could not start: the one line `downloadfs rpc` prints
/// before it exits 1 (R70).
public struct RPCServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence the user reads, naming the port and the address.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
