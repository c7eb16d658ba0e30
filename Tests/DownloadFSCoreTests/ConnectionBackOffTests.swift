import DownloadFSCore
import XCTest

final class ConnectionBackOffTests: XCTestCase {
    private let policy = RetryPolicy()
    private let unavailable = TransferFailure.http(status: 503, retryAfter: nil)

    func test_aFailedConnectionRestsTheAttemptAndTheRestGrows() {
        var backOff = ConnectionBackOff()
        XCTAssertTrue(backOff.allowsOpening(at: 0))
        backOff.failed(unavailable, now: 100, jitter: 0.5, policy: policy)
        XCTAssertFalse(backOff.allowsOpening(at: 100.5), "no request again at once (R53)")
        XCTAssertTrue(backOff.allowsOpening(at: 101))
        let first = backOff.restUntil - 100
        backOff.failed(unavailable, now: 200, jitter: 0.5, policy: policy)
        XCTAssertGreaterThan(backOff.restUntil - 200, first, "doubling, as the task's retries")
    }

    func test_retryAfterIsHonoured() {
        var backOff = ConnectionBackOff()
        backOff.failed(.http(status: 503, retryAfter: 30), now: 0, jitter: 0.5, policy: policy)
        XCTAssertFalse(backOff.allowsOpening(at: 29))
        XCTAssertTrue(backOff.allowsOpening(at: 30))
    }

    func test_aFetchedRangeEndsTheRest() {
        var backOff = ConnectionBackOff()
        backOff.failed(unavailable, now: 0, jitter: 0.5, policy: policy)
        backOff.failed(unavailable, now: 5, jitter: 0.5, policy: policy)
        backOff.fetched()
        XCTAssertTrue(backOff.allowsOpening(at: 5))
        backOff.failed(unavailable, now: 10, jitter: 0.5, policy: policy)
        XCTAssertTrue(backOff.allowsOpening(at: 11), "counted from one again")
    }

    /// R23: EIO is for a failed task; a reading attempt waits through what a download would retry.
    func test_aReadingAttemptWaitsThroughATransientFailureWhileReadersWait() {
        XCTAssertTrue(ConnectionBackOff.readingAttemptWaits(after: unavailable, readersWaiting: 1))
        XCTAssertFalse(ConnectionBackOff.readingAttemptWaits(after: .http(status: 404, retryAfter: nil), readersWaiting: 1),
                       "a permanent answer will not change")
        XCTAssertFalse(ConnectionBackOff.readingAttemptWaits(after: unavailable, readersWaiting: 0), "nobody waits")
    }
}
