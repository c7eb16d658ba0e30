/// A reply body and what the transport must know of it without reading it
/// again: aria2c answers a single call's error with an HTTP error status
/// and a close, and a wrong secret a second late (`RPCReplyStatus`).
public struct Aria2Reply: Sendable, Equatable {
    public let body: [UInt8]
    /// The error a single call (or a body that is no call) answered; nil
    /// for a result and for a batch, which aria2c always answers 200.
    public let error: Aria2Error?
    /// A batch's: one of its calls was answered "Unauthorized".
    private let batchUnauthorized: Bool

    /// A single call's reply (or a body that is no call).
    public init(body: [UInt8], error: Aria2Error? = nil) {
        self.body = body
        self.error = error
        batchUnauthorized = false
    }

    /// A batch's reply; `unauthorized`: one of its calls had a wrong secret.
    public init(batch body: [UInt8], unauthorized: Bool) {
        self.body = body
        error = nil
        batchUnauthorized = unauthorized
    }

    /// Whether a wrong secret was answered, alone or in a batch.
    public var unauthorized: Bool { error == .unauthorized || batchUnauthorized }
}
