/// A token bucket for one transfer's speed limit.
///
/// Credit accrues at `limit` bytes per second from the last rebase; a chunk
/// may be written while the credit is not negative, and its size is then
/// owed. Debt carries over, so the average over any few seconds stays within
/// one chunk of the limit. Idle credit is capped at a quarter second's worth
/// so a slow server cannot build up a burst.
struct RateLimiter {
    private(set) var limit: Int64 = 0
    private var credit: Double = 0
    private var stamp: Double = 0

    mutating func setLimit(_ bytesPerSecond: Int64, now: Double) {
        limit = bytesPerSecond
        credit = 0
        stamp = now
    }

    private func credit(at now: Double) -> Double {
        min(Double(limit) / 4, credit + Double(limit) * max(0, now - stamp))
    }

    func allows(now: Double) -> Bool {
        limit <= 0 || credit(at: now) >= 0
    }

    mutating func consume(_ bytes: Int64, now: Double) {
        credit = credit(at: now) - Double(bytes)
        stamp = now
    }
}
