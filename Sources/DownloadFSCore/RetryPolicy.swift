/// Back-off and give-up rules for failed attempts (R53).
///
/// Back-off starts at 1 s and doubles to a 60 s cap, spread by jitter so many
/// tasks failing together do not retry in lockstep; a server's Retry-After
/// wins when it asks for longer (up to an hour). Only attempts that received
/// no data count towards `maxTries`, so a flaky but progressing download is
/// never given up on.
public struct RetryPolicy: Sendable, Equatable {
    public static let capSeconds: Double = 60
    public static let retryAfterCapSeconds: Double = 3600

    public var maxTries: Int

    public init(maxTries: Int = 20) {
        self.maxTries = maxTries
    }

    /// Seconds to wait before retry number `retry` (1-based: ~1 s, ~2 s, ~4 s, … ≤ 60 s).
    ///
    /// `jitter` in 0..<1 comes from the caller: delay = base × (0.75 + 0.5 × jitter), never above 60.
    public func delay(retry: Int, retryAfter: Double?, jitter: Double) -> Double {
        let exponent = min(max(retry, 1) - 1, 16)
        let base = min(RetryPolicy.capSeconds, Double(1 << exponent))
        let spread = jitter.isFinite ? min(max(jitter, 0), 1) : 0.5
        var delay = min(RetryPolicy.capSeconds, base * (0.75 + 0.5 * spread))
        if let retryAfter, retryAfter.isFinite {
            delay = max(delay, min(max(retryAfter, 0), RetryPolicy.retryAfterCapSeconds))
        }
        return delay
    }

    /// Permanent failures fail at once; transient ones retry until `failuresWithoutData` (this one included) reaches `maxTries`.
    public func decide(_ failure: TransferFailure, failuresWithoutData: Int) -> RetryDecision {
        guard failure.isTransient else { return .fail }
        return failuresWithoutData >= maxTries ? .fail : .retry
    }
}
