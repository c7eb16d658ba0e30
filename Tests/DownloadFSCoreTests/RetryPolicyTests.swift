import XCTest
@testable import DownloadFSCore

/// R53: back-off and giving up.
final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy()

    func test_R53_backOffStartsAtOneSecondAndDoubles() {
        let withoutJitter = (1...7).map { policy.delay(retry: $0, retryAfter: nil, jitter: 0.5) }
        XCTAssertEqual(withoutJitter, [1, 2, 4, 8, 16, 32, 60])
    }

    func test_R53_backOffIsCappedAt60Seconds() {
        for retry in [7, 8, 20, 100, Int.max] {
            for jitter in [0.0, 0.5, 0.999] {
                XCTAssertLessThanOrEqual(policy.delay(retry: retry, retryAfter: nil, jitter: jitter), 60)
            }
        }
        XCTAssertEqual(policy.delay(retry: 30, retryAfter: nil, jitter: 0.999), 60)
    }

    func test_R53_jitterSpreadsWithinBounds() {
        XCTAssertEqual(policy.delay(retry: 3, retryAfter: nil, jitter: 0), 3)
        XCTAssertEqual(policy.delay(retry: 3, retryAfter: nil, jitter: 0.99), 4 * (0.75 + 0.5 * 0.99), accuracy: 1e-9)
        XCTAssertEqual(policy.delay(retry: 10, retryAfter: nil, jitter: 0), 45)
        for retry in 1...10 {
            let base = min(60, pow(2, Double(retry - 1)))
            for jitter in stride(from: 0.0, to: 1.0, by: 0.1) {
                let d = policy.delay(retry: retry, retryAfter: nil, jitter: jitter)
                XCTAssertGreaterThanOrEqual(d, base * 0.75)
                XCTAssertLessThanOrEqual(d, min(60, base * 1.25))
            }
        }
    }

    func test_R53_outOfRangeJitterIsClamped() {
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: nil, jitter: -5), 0.75)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: nil, jitter: 7), 1.25)
        XCTAssertEqual(policy.delay(retry: 0, retryAfter: nil, jitter: 0.5), 1)
    }

    func test_R53_retryAfterHonouredWhenLonger() {
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: 30, jitter: 0.5), 30)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: 120, jitter: 0.5), 120)
        XCTAssertEqual(policy.delay(retry: 6, retryAfter: 2, jitter: 0.5), 32)
    }

    func test_R53_retryAfterCappedAtOneHour() {
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: 86400, jitter: 0.5), 3600)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: -10, jitter: 0.5), 1)
        XCTAssertEqual(policy.delay(retry: 1, retryAfter: .infinity, jitter: 0.5), 1)
    }

    func test_R53_transientRetriesUntilMaxTriesFailuresWithoutData() {
        let policy = RetryPolicy(maxTries: 3)
        XCTAssertEqual(policy.decide(.connectionReset, failuresWithoutData: 1), .retry)
        XCTAssertEqual(policy.decide(.connectionReset, failuresWithoutData: 2), .retry)
        XCTAssertEqual(policy.decide(.connectionReset, failuresWithoutData: 3), .fail)
        XCTAssertEqual(policy.decide(.http(status: 503, retryAfter: nil), failuresWithoutData: 4), .fail)
    }

    func test_R53_attemptThatReceivedDataResetsTheCount() {
        // The caller passes 0 after an attempt that got data; that never fails a transient error.
        XCTAssertEqual(RetryPolicy(maxTries: 1).decide(.partialBody, failuresWithoutData: 0), .retry)
    }

    func test_R53_defaultIs20Tries() {
        XCTAssertEqual(RetryPolicy().maxTries, 20)
        XCTAssertEqual(policy.decide(.timedOut, failuresWithoutData: 19), .retry)
        XCTAssertEqual(policy.decide(.timedOut, failuresWithoutData: 20), .fail)
    }

    func test_R53_permanent4xxFailsAtOnce() {
        for status in [400, 401, 403, 404, 410] {
            XCTAssertEqual(policy.decide(.http(status: status, retryAfter: nil), failuresWithoutData: 1), .fail)
        }
    }

    func test_R54_writeErrorFailsAtOnce() {
        XCTAssertEqual(policy.decide(.writeError(errno: 28, message: "No space left on device"), failuresWithoutData: 0), .fail)
    }

    /// C.md #2: files held open in files/ use up the daemon's descriptors;
    /// a download that cannot open its data meanwhile waits, it does not fail.
    func test_R53_outOfDescriptorsRetriesUntilMaxTries() {
        for code: Int32 in [24 /* EMFILE */, 23 /* ENFILE */] {
            let failure = TransferFailure.writeError(errno: code, message: "Too many open files")
            XCTAssertEqual(policy.decide(failure, failuresWithoutData: 1), .retry)
            XCTAssertEqual(policy.decide(failure, failuresWithoutData: policy.maxTries), .fail)
            XCTAssertFalse(failure.message.contains("disk"), failure.message)
        }
    }

    func test_R55_redirectAndTLSProblemsFailAtOnce() {
        XCTAssertEqual(policy.decide(.tooManyRedirects, failuresWithoutData: 1), .fail)
        XCTAssertEqual(policy.decide(.forbiddenRedirect("file"), failuresWithoutData: 1), .fail)
        XCTAssertEqual(policy.decide(.tls(.expired), failuresWithoutData: 1), .fail)
    }
}
