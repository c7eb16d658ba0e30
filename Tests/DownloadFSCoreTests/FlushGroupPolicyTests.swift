import XCTest
@testable import DownloadFSCore

/// R51, SPEC §9: finished files are flushed in groups, by size or deadline.
final class FlushGroupPolicyTests: XCTestCase {
    private let policy = FlushGroupPolicy(size: 4, deadline: 0.010)

    func test_nothingWaitingSleeps() {
        XCTAssertEqual(policy.decide(waiting: 0, waited: 5), .idle)
        XCTAssertEqual(policy.decide(waiting: 0, waited: 5, draining: true), .idle)
    }

    func test_aGroupNotYetFullWaitsOutTheRestOfItsDeadline() {
        guard case .flushIn(let seconds) = policy.decide(waiting: 1, waited: 0.004) else {
            return XCTFail("a lone file flushed before its deadline")
        }
        XCTAssertEqual(seconds, 0.006, accuracy: 1e-9)
        XCTAssertEqual(policy.decide(waiting: 3, waited: 0), .flushIn(0.010))
    }

    func test_aFullGroupFlushesAtOnce() {
        XCTAssertEqual(policy.decide(waiting: 4, waited: 0), .flushNow)
        XCTAssertEqual(policy.decide(waiting: 40, waited: 0), .flushNow)
    }

    func test_theDeadlineFlushesWhatWaits() {
        XCTAssertEqual(policy.decide(waiting: 1, waited: 0.010), .flushNow)
        XCTAssertEqual(policy.decide(waiting: 2, waited: 3), .flushNow)
    }

    /// At shutdown nothing waits for company (R50: an unmount finishes what it can).
    func test_drainingFlushesAtOnce() {
        XCTAssertEqual(policy.decide(waiting: 1, waited: 0, draining: true), .flushNow)
    }

    func test_aGroupOfOneFlushesEachFileAlone() {
        let alone = FlushGroupPolicy(size: 1, deadline: 1)
        XCTAssertEqual(alone.decide(waiting: 1, waited: 0), .flushNow)
        XCTAssertEqual(FlushGroupPolicy(size: 0, deadline: -1), FlushGroupPolicy(size: 1, deadline: 0))
    }
}
