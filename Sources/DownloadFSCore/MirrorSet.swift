/// The URLs of one attempt of a task with mirrors (R19), and what each has
/// come to: live or dropped, and for a live one its transient failures in a
/// row and the back-off they earned (R53, counted per mirror as R19 says).
///
/// Pure: the engine reports failures and answers with the time and a
/// jitter, and asks which URLs may take a connection now. Index 0 is the
/// task's first URL still live when the attempt began, then its mirrors.
///
/// - A permanent failure (4xx, another file) drops the mirror, unless it is
///   the last one live: then the attempt fails as a single URL would.
/// - A transient one backs the mirror off (1 s doubling to 60 s, with
///   jitter; Retry-After honoured) while the other mirrors go on, and
///   `maxTries` of them in a row drop it. On the last live mirror it is
///   the attempt's failure, and the task's own back-off follows (R53).
/// - A dropped mirror's answers and failures speak for nothing any more.
public struct MirrorSet: Sendable, Equatable {
    /// What a mirror's failure comes to.
    public enum Verdict: Equatable, Sendable {
        /// The mirror is dropped, for the reason given (the task log says it).
        case dropped(reason: String)
        /// The mirror rests until the time given; the others go on.
        case backingOff(until: Double)
        /// It was the last live mirror: the failure is the attempt's.
        case attemptFails
        /// The mirror was dropped already: the failure counts for nothing.
        case ignored
    }

    public let count: Int
    public let retry: RetryPolicy
    private var live: [Bool]
    private var failures: [Int]
    private var resting: [Double]

    public init(count: Int, retry: RetryPolicy) {
        self.count = max(1, count)
        self.retry = retry
        live = Array(repeating: true, count: self.count)
        failures = Array(repeating: 0, count: self.count)
        resting = Array(repeating: -.infinity, count: self.count)
    }

    public func isLive(_ mirror: Int) -> Bool { live.indices.contains(mirror) && live[mirror] }

    public var liveCount: Int { live.lazy.filter { $0 }.count }

    /// Live and not backing off at `now`: may take a new connection.
    public func isReady(_ mirror: Int, now: Double) -> Bool {
        isLive(mirror) && resting[mirror] <= now
    }

    /// Whether a live mirror other than `except` may take a connection at `now`.
    public func anyReady(now: Double, except: Int? = nil) -> Bool {
        live.indices.contains { $0 != except && isReady($0, now: now) }
    }

    /// The first live mirror (the one an attempt's first request goes to), if any.
    public var firstLive: Int? { live.firstIndex(of: true) }

    /// Stops using `mirror`; false when it is the last live one (or gone already).
    public mutating func drop(_ mirror: Int) -> Bool {
        guard isLive(mirror), liveCount > 1 else { return false }
        live[mirror] = false
        return true
    }

    /// `mirror` answered with the file: its failures in a row are over.
    public mutating func answered(_ mirror: Int) {
        guard isLive(mirror) else { return }
        failures[mirror] = 0
        resting[mirror] = -.infinity
    }

    /// A connection to `mirror` failed with `failure` at `now`; `jitter` in
    /// 0..<1 spreads the back-off.
    public mutating func failed(_ mirror: Int, _ failure: TransferFailure, now: Double, jitter: Double) -> Verdict {
        guard isLive(mirror) else { return .ignored }
        guard failure.isTransient else {
            return drop(mirror) ? .dropped(reason: failure.message) : .attemptFails
        }
        guard liveCount > 1 else { return .attemptFails }
        failures[mirror] += 1
        if failures[mirror] >= retry.maxTries, drop(mirror) {
            return .dropped(reason: "\(failure.message) (\(failures[mirror]) tries in a row)")
        }
        let until = now + retry.delay(retry: failures[mirror], retryAfter: failure.retryAfter, jitter: jitter)
        resting[mirror] = max(resting[mirror], until)
        return .backingOff(until: resting[mirror])
    }
}
