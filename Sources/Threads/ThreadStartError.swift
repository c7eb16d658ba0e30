import Glibc

/// A thread that could not be made (`pthread_create` failed): the system
/// is out of threads or memory, or the process hit its limit.
public struct ThreadStartError: Error, Sendable, Equatable {
    /// The thread's name, as `OSThread.start` was given it.
    public let name: String
    /// `pthread_create`'s error number (EAGAIN, ENOMEM, EINVAL).
    public let code: Int32

    /// What the user reads.
    public var message: String {
        "cannot start the \(name) thread (\(String(cString: strerror(code)))): "
            + "the system is out of threads or memory; free some and try again"
    }
}
