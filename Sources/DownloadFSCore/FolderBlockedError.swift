/// Why a finished file's folder could not be made (R35: `dir=` makes the
/// folders it names): the failed task's error, with what to do.
public struct FolderBlockedError: Error, Equatable, Sendable {
    public enum Cause: Equatable, Sendable {
        /// A file (not a folder) has the folder's name.
        case fileInTheWay
        /// `mkdir` failed with this reason (`strerror`).
        case system(String)
    }

    /// The folder under `files/` that could not be made.
    public let folder: String
    public let cause: Cause

    public init(folder: String, cause: Cause) {
        self.folder = folder
        self.cause = cause
    }

    public var message: String {
        let why = switch cause {
        case .fileInTheWay: "a file has that name"
        case .system(let reason): reason
        }
        return "cannot make the folder \(folder) in files/: \(why); move it away (mv) and resume the task"
    }
}
