/// What `FlushGroupPolicy` says to do with the files waiting for a flush.
public enum FlushGroupDecision: Sendable, Equatable {
    /// Nothing waits: sleep until a file comes.
    case idle
    /// Flush every file waiting now.
    case flushNow
    /// Wait for more files at most this many seconds, then flush.
    case flushIn(Double)
}
