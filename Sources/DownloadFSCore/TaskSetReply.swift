/// The answer the task set gives a writer waiting on a request's token.
public enum TaskSetReply: Sendable, Equatable {
    /// The request is done (once committed).
    case done
    /// `add`: each entry's task id.
    case ids([Int64])
    /// A `ctl` command refused, with the sentence the user reads.
    case refused(String)
    /// `mv` refused.
    case renameRefused(RenameError)
}
