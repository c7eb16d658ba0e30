/// Download speed averaged over the last few seconds (R20), from cumulative byte counts.
///
/// The caller records `(total, time)` samples as bytes land and asks for the
/// rate at `now`; nothing here reads a clock. The byte count is treated as a
/// piecewise-linear function of time and the rate is its growth over the
/// window ending at `now`, so a stalled transfer falls to 0 within one window.
/// Memory is bounded: samples closer together than `window / 60` are merged
/// and at most `maxSamples` are kept.
public struct SpeedWindow: Sendable {
    public static let maxSamples = 64

    private struct Sample: Sendable {
        var time: Double
        var total: Int64
    }

    public let window: Double
    private var samples: [Sample] = []

    public init(window: Double = 5) {
        self.window = window > 0 ? window : 5
    }

    /// Records that `total` bytes had arrived in all by `time` (monotonic seconds).
    ///
    /// A total lower than the last one (the download started over) or a time
    /// going backwards starts a fresh window.
    public mutating func record(total: Int64, at time: Double) {
        if let last = samples.last, total < last.total || time < last.time {
            samples.removeAll(keepingCapacity: true)
        }
        let spacing = window / 60
        if samples.count >= 2, time - samples[samples.count - 2].time < spacing {
            samples[samples.count - 1] = Sample(time: time, total: total)
        } else {
            samples.append(Sample(time: time, total: total))
        }
        // Keep one sample at or before the window start, as the baseline to interpolate from.
        let windowStart = time - window
        if let firstInside = samples.firstIndex(where: { $0.time > windowStart }), firstInside > 1 {
            samples.removeFirst(firstInside - 1)
        }
        if samples.count > SpeedWindow.maxSamples {
            samples.removeFirst(samples.count - SpeedWindow.maxSamples)
        }
    }

    /// Average bytes per second over the window ending at `now`; 0 when nothing moved in it.
    public func bytesPerSecond(now: Double) -> Double {
        guard let first = samples.first, let last = samples.last, samples.count >= 2 else { return 0 }
        let end = min(now, last.time)
        let start = max(now - window, first.time)
        let elapsed = now - start
        guard elapsed > 0, end > start else { return 0 }
        let moved = totalAt(end) - totalAt(start)
        return moved > 0 ? moved / elapsed : 0
    }

    /// How many samples are held (for tests of the memory bound).
    var sampleCount: Int { samples.count }

    /// Forgets every sample (after a pause or a restart of the transfer).
    public mutating func reset() {
        samples.removeAll(keepingCapacity: true)
    }

    /// Bytes received by time `t`, interpolated between samples.
    private func totalAt(_ t: Double) -> Double {
        guard let first = samples.first, let last = samples.last else { return 0 }
        if t <= first.time { return Double(first.total) }
        if t >= last.time { return Double(last.total) }
        var lo = 0
        var hi = samples.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if samples[mid].time <= t { lo = mid } else { hi = mid }
        }
        let a = samples[lo]
        let b = samples[hi]
        guard b.time > a.time else { return Double(b.total) }
        let fraction = (t - a.time) / (b.time - a.time)
        return Double(a.total) + fraction * Double(b.total - a.total)
    }
}
