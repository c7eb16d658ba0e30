import XCTest
@testable import Engine

/// R30/R31 speed limits: the engine's token bucket keeps a transfer within
/// 10 % of its limit over 10 s, whatever the chunk sizes curl hands over.
final class RateLimiterTests: XCTestCase {
    private let kib: Int64 = 1024
    private let mib: Int64 = 1024 * 1024
    /// Far faster than any limit below, as on loopback.
    private let loopback = 1e9

    private func assertWithinTenPercent(_ written: Int64, seconds: Double, of limit: Int64, _ what: String,
                                        file: StaticString = #filePath, line: UInt = #line) {
        let rate = Double(written) / seconds
        XCTAssertEqual(rate, Double(limit), accuracy: Double(limit) / 10,
                       "\(what): \(Int(rate)) B/s against a limit of \(limit) B/s", file: file, line: line)
    }

    func test_R31_aLimitedTransferStaysWithinTenPercentOfItsLimitOver10Seconds() {
        // (limit, chunk): buffers of 1/8 s of the limit (a transfer started with
        // its limit), and curl's usual 16 KiB pieces.
        let cases: [(Int64, Int64)] = [
            (8 * kib, 1 * kib), (64 * kib, 8 * kib), (256 * kib, 32 * kib), (256 * kib, 16 * kib),
            (1 * mib, 16 * kib), (10 * mib, 16 * kib), (16 * mib, 2 * mib), (100 * mib, 16 * kib),
        ]
        for (limit, chunk) in cases {
            var transfer = SimulatedTransfer(chunk: chunk, networkRate: loopback)
            transfer.setLimit(limit)
            for window in 1...3 {
                assertWithinTenPercent(transfer.run(for: 10), seconds: 10, of: limit,
                                       "limit \(limit), chunks of \(chunk), window \(window)")
            }
        }
    }

    func test_R31_aTransferSlowerThanItsLimitIsNotHeldBack() {
        let network = 100.0 * 1024
        var transfer = SimulatedTransfer(chunk: 4 * kib, networkRate: network)
        transfer.setLimit(1 * mib)
        XCTAssertEqual(Double(transfer.run(for: 10)) / 10, network, accuracy: network / 100)
    }

    func test_R31_aLimitOfZeroMeansNone() {
        var limiter = RateLimiter()
        XCTAssertTrue(limiter.allows(now: 0), "a new limiter has no limit")
        limiter.setLimit(0, now: 0)
        limiter.consume(1 << 40, now: 0)
        XCTAssertTrue(limiter.allows(now: 0), "no debt is owed without a limit")
        limiter.setLimit(-5, now: 0)
        XCTAssertTrue(limiter.allows(now: 0), "nor with a negative one")

        var transfer = SimulatedTransfer(chunk: 16 * kib, networkRate: 50e6)
        transfer.setLimit(0)
        XCTAssertEqual(Double(transfer.run(for: 10)) / 10, 50e6, accuracy: 50e6 / 100, "the network's own speed")
    }

    func test_R31_removingTheLimitLiftsItAtOnceEvenInDebt() {
        var limiter = RateLimiter()
        limiter.setLimit(1000, now: 0)
        limiter.consume(1_000_000, now: 0)
        XCTAssertFalse(limiter.allows(now: 1))
        limiter.setLimit(0, now: 1)
        XCTAssertTrue(limiter.allows(now: 1))
    }

    func test_R31_changingTheLimitMidwayTakesEffectFromThen() {
        var transfer = SimulatedTransfer(chunk: 16 * kib, networkRate: loopback)
        for limit in [1 * mib, 256 * kib, 4 * mib, 512 * kib, 20 * mib, 300 * kib] {
            transfer.setLimit(limit)
            assertWithinTenPercent(transfer.run(for: 10), seconds: 10, of: limit, "after changing to \(limit)")
        }
    }

    func test_R31_aLimitSetAfterUnlimitedRunningHoldsFromThen() {
        let network = 50e6
        var transfer = SimulatedTransfer(chunk: 16 * kib, networkRate: network)
        XCTAssertGreaterThan(Double(transfer.run(for: 10)) / 10, network * 0.9, "no limit at first")
        transfer.setLimit(2 * mib)
        assertWithinTenPercent(transfer.run(for: 10), seconds: 10, of: 2 * mib, "limited")
        transfer.setLimit(0)
        XCTAssertGreaterThan(Double(transfer.run(for: 10)) / 10, network * 0.9, "unlimited again")
    }

    func test_R31_debtCarriesOverUntilPaid() {
        var limiter = RateLimiter()
        limiter.setLimit(1000, now: 0)
        XCTAssertTrue(limiter.allows(now: 0), "the first chunk may go")
        limiter.consume(2500, now: 0)
        XCTAssertFalse(limiter.allows(now: 0))
        XCTAssertFalse(limiter.allows(now: 2.4), "2.5 s of credit are owed")
        XCTAssertTrue(limiter.allows(now: 2.5))
    }

    func test_R31_idleCreditIsCappedAtAQuarterSecond() {
        let limit = 1 * mib
        var limiter = RateLimiter()
        limiter.setLimit(limit, now: 0)
        // Five idle seconds, then everything allowed at that one instant.
        var burst: Int64 = 0
        while limiter.allows(now: 5) {
            limiter.consume(kib, now: 5)
            burst += kib
            if burst > 10 * limit { break }
        }
        XCTAssertGreaterThanOrEqual(burst, limit / 4)
        XCTAssertLessThanOrEqual(burst, limit / 4 + kib)

        var transfer = SimulatedTransfer(chunk: 16 * kib, networkRate: loopback)
        transfer.setLimit(limit)
        transfer.idle(for: 60)
        XCTAssertLessThanOrEqual(transfer.run(for: 1), limit + limit / 4 + 16 * kib,
                                 "the second after a long idle spell")
    }
}
