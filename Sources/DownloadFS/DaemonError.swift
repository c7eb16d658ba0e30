/// Why the daemon (or a command) cannot go on: one line for the user (R2).
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
