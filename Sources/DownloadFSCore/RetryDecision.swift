/// Whether a failed attempt is tried again (`retrying`) or ends the task (`failed`), R53.
public enum RetryDecision: Sendable, Equatable {
    case retry, fail
}
