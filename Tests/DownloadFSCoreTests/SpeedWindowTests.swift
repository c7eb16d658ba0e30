import XCTest
@testable import DownloadFSCore

/// R20: speed is the average over the last few seconds.
final class SpeedWindowTests: XCTestCase {
    func test_R20_steadyRate() {
        var window = SpeedWindow()
        for second in 0...10 {
            window.record(total: Int64(second) * 1_000_000, at: Double(second))
        }
        XCTAssertEqual(window.bytesPerSecond(now: 10), 1_000_000, accuracy: 1)
    }

    func test_R20_averagesOnlyTheLastFiveSeconds() {
        var window = SpeedWindow(window: 5)
        // 10 MB/s for 10 s, then 1 MB/s for 5 s.
        var total: Int64 = 0
        for second in 1...10 {
            total += 10_000_000
            window.record(total: total, at: Double(second))
        }
        for second in 11...15 {
            total += 1_000_000
            window.record(total: total, at: Double(second))
        }
        XCTAssertEqual(window.bytesPerSecond(now: 15), 1_000_000, accuracy: 1)
    }

    func test_R20_zeroWhenNothingMovedInTheWindow() {
        var window = SpeedWindow()
        window.record(total: 0, at: 0)
        window.record(total: 5_000_000, at: 1)
        XCTAssertGreaterThan(window.bytesPerSecond(now: 2), 0)
        XCTAssertEqual(window.bytesPerSecond(now: 6.5), 0)
        window.record(total: 5_000_000, at: 7)
        XCTAssertEqual(window.bytesPerSecond(now: 7), 0)
    }

    func test_R20_stallDecaysTowardsZero() {
        var window = SpeedWindow()
        for second in 0...5 { window.record(total: Int64(second) * 1000, at: Double(second)) }
        let moving = window.bytesPerSecond(now: 5)
        let stalling = window.bytesPerSecond(now: 7)
        XCTAssertEqual(moving, 1000, accuracy: 0.01)
        XCTAssertLessThan(stalling, moving)
        XCTAssertEqual(stalling, 3000.0 / 5, accuracy: 0.01)
    }

    func test_R20_zeroWithNoOrOneSample() {
        var window = SpeedWindow()
        XCTAssertEqual(window.bytesPerSecond(now: 1), 0)
        window.record(total: 100, at: 1)
        XCTAssertEqual(window.bytesPerSecond(now: 2), 0)
    }

    func test_R20_shortHistoryUsesTheTimeSinceTheFirstSample() {
        var window = SpeedWindow()
        window.record(total: 0, at: 100)
        window.record(total: 1_000_000, at: 100.5)
        XCTAssertEqual(window.bytesPerSecond(now: 100.5), 2_000_000, accuracy: 1)
    }

    func test_R20_resumedOffsetIsNotCountedAsSpeed() {
        var window = SpeedWindow()
        window.record(total: 4_000_000_000, at: 0)
        window.record(total: 4_000_001_000, at: 1)
        XCTAssertEqual(window.bytesPerSecond(now: 1), 1000, accuracy: 0.01)
    }

    func test_R20_resetForgetsEverything() {
        var window = SpeedWindow()
        window.record(total: 0, at: 0)
        window.record(total: 1000, at: 1)
        window.reset()
        XCTAssertEqual(window.bytesPerSecond(now: 1), 0)
    }

    func test_R52_totalGoingBackwardsStartsAFreshWindow() {
        var window = SpeedWindow()
        window.record(total: 0, at: 0)
        window.record(total: 10_000_000, at: 1)
        window.record(total: 0, at: 2)  // started over
        window.record(total: 500, at: 3)
        XCTAssertEqual(window.bytesPerSecond(now: 3), 500, accuracy: 0.01)
    }

    func test_R20_memoryIsBoundedUnderManySamples() {
        var window = SpeedWindow()
        var total: Int64 = 0
        var time = 0.0
        for _ in 0..<100_000 {
            total += 1000
            time += 0.001
            window.record(total: total, at: time)
        }
        XCTAssertLessThanOrEqual(window.sampleCount, SpeedWindow.maxSamples)
        XCTAssertEqual(window.bytesPerSecond(now: time), 1_000_000, accuracy: 1000)
    }
}
