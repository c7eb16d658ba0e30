/// What checking a finished download's digest gave (R56).
public enum VerifyResult: Sendable, Equatable {
    case matched
    /// The digest computed, in hex; the expected one is in the task's options.
    case mismatched(actual: String)
    /// The data could not be read.
    case unreadable(TransferFailure)
}
