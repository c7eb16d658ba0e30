import XCTest
@testable import DownloadFSCore

/// R52: resuming with Range / If-Range, and what each answer means.
final class ResumeDecisionTests: XCTestCase {
    private func range(_ start: Int64, _ end: Int64, _ total: Int64?) -> ContentRange {
        ContentRange(start: start, end: end, total: total)
    }

    // MARK: request

    func test_R52_freshDownloadSendsNoRange() {
        XCTAssertEqual(ResumeDecision.requestHeaders(for: StoredProgress(offset: 0, etag: "\"abc\"")), [])
    }

    func test_R52_resumeSendsRangeAndStrongETag() {
        let stored = StoredProgress(offset: 4096, total: 10000, etag: "\"abc\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored), ["Range: bytes=4096-", "If-Range: \"abc\""])
        XCTAssertTrue(ResumeDecision.hasValidator(stored))
    }

    func test_R52_weakETagFallsBackToLastModified() {
        let stored = StoredProgress(offset: 4096, etag: "W/\"abc\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored),
                       ["Range: bytes=4096-", "If-Range: Sun, 06 Nov 1994 08:49:37 GMT"])
    }

    func test_R52_lastModifiedWhenNoETag() {
        let stored = StoredProgress(offset: 1, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored),
                       ["Range: bytes=1-", "If-Range: Sun, 06 Nov 1994 08:49:37 GMT"])
    }

    func test_R52_noValidatorResumesBySize() {
        let stored = StoredProgress(offset: 4096)
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored), ["Range: bytes=4096-"])
        XCTAssertFalse(ResumeDecision.hasValidator(stored))
        XCTAssertFalse(ResumeDecision.hasValidator(StoredProgress(offset: 4096, etag: "W/\"weak\"")))
    }

    // MARK: response

    func test_R52_206AtOffsetAppends() {
        let stored = StoredProgress(offset: 4096, total: 10000, etag: "\"a\"")
        let response = ResponseHead(status: 206, contentRange: range(4096, 9999, 10000), contentLength: 5904, etag: "\"a\"")
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response), .append(total: 10000))
    }

    func test_R52_206WithUnknownTotalKeepsStoredTotal() {
        let stored = StoredProgress(offset: 4096, total: 10000)
        let response = ResponseHead(status: 206, contentRange: range(4096, 9999, nil))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response), .append(total: 10000))
    }

    func test_R52_200MeansRangeIgnoredStartOver() {
        let stored = StoredProgress(offset: 4096, total: 10000)
        let response = ResponseHead(status: 200, contentLength: 10000)
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response),
                       .startOver(total: 10000, reason: "server ignored the range (200)"))
        XCTAssertTrue(ResumeDecision.bodyStartsAtZero(response))
    }

    func test_R52_200WithNewETagSaysTheFileChanged() {
        let stored = StoredProgress(offset: 4096, total: 10000, etag: "\"v1\"")
        let response = ResponseHead(status: 200, contentLength: 10000, etag: "\"v2\"")
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response),
                       .startOver(total: 10000, reason: "file changed on the server (ETag \"v1\" → \"v2\")"))
    }

    func test_R52_200WithNewSizeSaysTheFileChanged() {
        let stored = StoredProgress(offset: 50, total: 100)
        let response = ResponseHead(status: 200, contentLength: 200)
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response),
                       .startOver(total: 200, reason: "file changed on the server (total 100 → 200)"))
    }

    func test_R52_416AtKnownTotalIsDone() {
        let stored = StoredProgress(offset: 10000, total: 10000)
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: ResponseHead(status: 416)),
                       .alreadyComplete(total: 10000))
        let withRange = ResponseHead(status: 416, contentRange: ContentRange(start: nil, end: nil, total: 10000))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: withRange), .alreadyComplete(total: 10000))
    }

    func test_R52_416WithTotalOnlyFromServerIsDone() {
        let stored = StoredProgress(offset: 10000)
        let response = ResponseHead(status: 416, contentRange: ContentRange(start: nil, end: nil, total: 10000))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response), .alreadyComplete(total: 10000))
    }

    func test_R52_416OtherwiseStartsOver() {
        let shorter = ResponseHead(status: 416, contentRange: ContentRange(start: nil, end: nil, total: 5000))
        guard case .startOver(let total, _) = ResumeDecision.decide(stored: StoredProgress(offset: 10000, total: 10000),
                                                                    response: shorter) else {
            return XCTFail("expected startOver")
        }
        XCTAssertEqual(total, 5000)
        guard case .startOver = ResumeDecision.decide(stored: StoredProgress(offset: 4096, total: 10000),
                                                      response: ResponseHead(status: 416)) else {
            return XCTFail("expected startOver")
        }
        XCTAssertFalse(ResumeDecision.bodyStartsAtZero(shorter))
    }

    func test_R52_changedTotalStartsOver() {
        let stored = StoredProgress(offset: 50, total: 100, etag: "\"a\"")
        let response = ResponseHead(status: 206, contentRange: range(50, 199, 200))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response),
                       .startOver(total: 200, reason: "file changed on the server (total 100 → 200)"))
        XCTAssertFalse(ResumeDecision.bodyStartsAtZero(response))
    }

    func test_R52_contentRangeStartingElsewhereStartsOver() {
        let stored = StoredProgress(offset: 4096, total: 10000)
        let fromZero = ResponseHead(status: 206, contentRange: range(0, 9999, 10000))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: fromZero),
                       .startOver(total: 10000, reason: "Content-Range starts at 0, expected 4096"))
        XCTAssertTrue(ResumeDecision.bodyStartsAtZero(fromZero))
        let later = ResponseHead(status: 206, contentRange: range(5000, 9999, 10000))
        XCTAssertEqual(ResumeDecision.decide(stored: stored, response: later),
                       .startOver(total: 10000, reason: "Content-Range starts at 5000, expected 4096"))
        XCTAssertFalse(ResumeDecision.bodyStartsAtZero(later))
    }

    func test_R52_206WithoutContentRangeStartsOver() {
        guard case .startOver = ResumeDecision.decide(stored: StoredProgress(offset: 10), response: ResponseHead(status: 206)) else {
            return XCTFail("expected startOver")
        }
    }

    func test_R52_freshDownloadAppendsFrom200Or206AtZero() {
        XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 0), response: ResponseHead(status: 200, contentLength: 77)),
                       .append(total: 77))
        XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 0), response: ResponseHead(status: 200)),
                       .append(total: nil))
        XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 0),
                                             response: ResponseHead(status: 206, contentRange: range(0, 76, 77))),
                       .append(total: 77))
    }

    func test_R43_errorStatusesFail() {
        for status in [400, 403, 404, 410, 500, 503, 301, 304] {
            XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 0), response: ResponseHead(status: status)),
                           .fail(.http(status: status, retryAfter: nil)), "\(status)")
        }
        XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 9),
                                             response: ResponseHead(status: 503, retryAfter: 12)),
                       .fail(.http(status: 503, retryAfter: 12)))
    }
}
