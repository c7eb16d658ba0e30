/// An event the machine refuses for a task in its state: a `ctl` command
/// that does not apply (the sentence is what `MOUNT/log` shows), or an
/// illegal transition, which is a bug in the caller.
public struct TaskMachineError: Error, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }
}
