/// The pause before an attempt opens another connection after one of its
/// connections failed while the others go on (R53's back-off, within an
/// attempt): no connection for what readers wait for (R23), no segment the
/// adaptive split or the endgame would add (R18), until it ends. Without
/// it, a server that answered one range with a 503 (or refused it) while
/// the task's own connection streamed on was asked for that range again at
/// once, or at every tick: thousands of requests a second while a reader
/// waited. The pause grows as the task's retries do (`RetryPolicy.delay`,
/// the server's Retry-After honoured) and ends when a connection ends with
/// its range fetched.
public struct ConnectionBackOff: Sendable, Equatable {
    private var failures = 0
    /// No new connection before this (monotonic seconds).
    public private(set) var restUntil: Double = 0

    public init() {}

    public mutating func failed(_ failure: TransferFailure, now: Double, jitter: Double, policy: RetryPolicy) {
        failures += 1
        restUntil = now + policy.delay(retry: failures, retryAfter: failure.retryAfter, jitter: jitter)
    }

    /// A connection fetched its range: the server serves again.
    public mutating func fetched() {
        failures = 0
        restUntil = 0
    }

    public func allowsOpening(at now: Double) -> Bool { now >= restUntil }

    /// Whether a reading attempt (a queued, paused or retrying task's, R23)
    /// whose connection failed waits out the pause and asks again, rather
    /// than end and give its readers EIO: while readers wait, for a failure
    /// a download would retry. EIO is for a failed task, and a permanent
    /// answer (a 404) will not change.
    public static func readingAttemptWaits(after failure: TransferFailure, readersWaiting: Int) -> Bool {
        readersWaiting > 0 && failure.isTransient
    }
}
