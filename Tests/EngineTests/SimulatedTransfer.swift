@testable import Engine

/// A transfer run the way the engine runs it, on simulated time.
///
/// The network hands the write callback `chunk` bytes at a time at
/// `networkRate`; the callback asks the limiter, as `EasyTransfer.receive`
/// does, and pauses the transfer when refused; the engine loop polls a held
/// transfer every 10 ms (`resumeIfAllowed`), and curl then hands over the
/// chunk it held back.
struct SimulatedTransfer {
    static let pollInterval = 0.01

    private(set) var limiter = RateLimiter()
    private(set) var now: Double = 0
    let chunk: Int64
    let networkRate: Double

    init(chunk: Int64, networkRate: Double) {
        self.chunk = chunk
        self.networkRate = networkRate
    }

    mutating func setLimit(_ bytesPerSecond: Int64) {
        limiter.setLimit(bytesPerSecond, now: now)
    }

    /// Lets the transfer sit idle (the server sends nothing) for `seconds`.
    mutating func idle(for seconds: Double) {
        now += seconds
    }

    /// Runs for `seconds` of simulated time; returns the bytes written in them.
    mutating func run(for seconds: Double) -> Int64 {
        let end = now + seconds
        var written: Int64 = 0
        while true {
            var at = now + Double(chunk) / networkRate
            if limiter.limit > 0 {
                while !limiter.allows(now: at) { at += Self.pollInterval }
            }
            guard at <= end else { break }
            now = at
            if limiter.limit > 0 { limiter.consume(chunk, now: now) }
            written += chunk
        }
        now = end
        return written
    }
}
