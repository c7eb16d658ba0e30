/// Why a `ctl` write was refused, in the words the log shows.
public struct ControlCommandError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
