import XCTest
@testable import DownloadFSCore

/// `MirrorSet` (R19, R53): a permanent failure drops a mirror unless it is
/// the last; a transient one rests it (back-off per mirror) while others
/// go on, and `maxTries` in a row drop it; a dropped mirror's failures
/// count for nothing.
final class MirrorSetTests: XCTestCase {
    private let notFound = TransferFailure.http(status: 404, retryAfter: nil)

    func test_R19_aPermanentFailureDropsTheMirrorButNeverTheLast() {
        var mirrors = MirrorSet(count: 2, retry: RetryPolicy(maxTries: 3))
        XCTAssertEqual(mirrors.failed(1, notFound, now: 0, jitter: 0.5), .dropped(reason: "HTTP 404 Not Found"))
        XCTAssertFalse(mirrors.isLive(1))
        XCTAssertEqual(mirrors.liveCount, 1)
        XCTAssertEqual(mirrors.failed(0, notFound, now: 0, jitter: 0.5), .attemptFails)
        XCTAssertTrue(mirrors.isLive(0), "the last mirror is never dropped: its failure is the task's")
    }

    func test_R19_aDroppedMirrorsLaterFailuresCountForNothing() {
        var mirrors = MirrorSet(count: 3, retry: RetryPolicy(maxTries: 3))
        _ = mirrors.failed(2, notFound, now: 0, jitter: 0.5)
        XCTAssertEqual(mirrors.failed(2, notFound, now: 0.09, jitter: 0.5), .ignored)
        XCTAssertEqual(mirrors.failed(2, .connectionReset, now: 0.1, jitter: 0.5), .ignored)
        XCTAssertEqual(mirrors.liveCount, 2)
        XCTAssertFalse(mirrors.drop(2), "dropped once")
    }

    func test_R19_R53_aTransientFailureRestsTheMirrorWhileOthersGoOn() {
        var mirrors = MirrorSet(count: 2, retry: RetryPolicy(maxTries: 5))
        // Back-off 1 s doubling, jitter 0.5 gives the base exactly.
        XCTAssertEqual(mirrors.failed(0, .connectionRefused, now: 10, jitter: 0.5), .backingOff(until: 11))
        XCTAssertFalse(mirrors.isReady(0, now: 10.5))
        XCTAssertTrue(mirrors.isReady(1, now: 10.5))
        XCTAssertTrue(mirrors.anyReady(now: 10.5, except: 0))
        XCTAssertFalse(mirrors.anyReady(now: 10.5, except: 1))
        XCTAssertTrue(mirrors.isReady(0, now: 11))
        XCTAssertEqual(mirrors.failed(0, .connectionRefused, now: 11, jitter: 0.5), .backingOff(until: 13))
        // Retry-After wins when longer.
        XCTAssertEqual(mirrors.failed(1, .http(status: 503, retryAfter: 30), now: 11, jitter: 0.5),
                       .backingOff(until: 41))
    }

    func test_R19_R53_maxTriesInARowDropAMirror_anAnswerStartsTheCountAgain() {
        var mirrors = MirrorSet(count: 2, retry: RetryPolicy(maxTries: 3))
        XCTAssertEqual(mirrors.failed(0, .timedOut, now: 0, jitter: 0.5), .backingOff(until: 1))
        XCTAssertEqual(mirrors.failed(0, .timedOut, now: 1, jitter: 0.5), .backingOff(until: 3))
        mirrors.answered(0)
        XCTAssertTrue(mirrors.isReady(0, now: 1), "an answer ends the rest")
        XCTAssertEqual(mirrors.failed(0, .timedOut, now: 3, jitter: 0.5), .backingOff(until: 4))
        XCTAssertEqual(mirrors.failed(0, .timedOut, now: 4, jitter: 0.5), .backingOff(until: 6))
        XCTAssertEqual(mirrors.failed(0, .timedOut, now: 6, jitter: 0.5),
                       .dropped(reason: "connection timed out (3 tries in a row)"))
        XCTAssertEqual(mirrors.firstLive, 1)
    }

    func test_R53_theLastLiveMirrorsTransientFailureIsTheAttempts() {
        var single = MirrorSet(count: 1, retry: RetryPolicy(maxTries: 2))
        XCTAssertEqual(single.failed(0, .connectionReset, now: 0, jitter: 0.5), .attemptFails)
        XCTAssertTrue(single.isReady(0, now: 0), "the task's own back-off (R53) takes over, not the mirror's")
    }
}
