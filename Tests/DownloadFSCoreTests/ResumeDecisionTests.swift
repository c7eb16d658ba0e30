import TestSupport
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

    // MARK: R18 closed ranges: request

    private let mdate = "Sun, 06 Nov 1994 08:49:37 GMT"

    func test_R18_rangeHeaderStrings() {
        XCTAssertEqual(RequestedRange(start: 0, end: 1_048_576).header, "bytes=0-1048575")
        XCTAssertEqual(RequestedRange(start: 100, end: 200).header, "bytes=100-199")
        XCTAssertEqual(RequestedRange(start: 7, end: 8).header, "bytes=7-7")
        XCTAssertEqual(RequestedRange.from(5).header, "bytes=5-")
        XCTAssertEqual(RequestedRange(start: 5, end: nil), .from(5))
        XCTAssertNil(RequestedRange.from(0).header, "the whole file is a plain GET")
        XCTAssertNil(RequestedRange.from(-3).header, "a negative start is the whole file")
        XCTAssertEqual(RequestedRange.from(-3).start, 0)
    }

    func test_R18_closedRangeFromZeroSendsRangeAndIfRange() {
        let stored = StoredProgress(offset: 0, total: 4_194_304, etag: "\"abc\"", lastModified: mdate)
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored, range: RequestedRange(start: 0, end: 1_048_576)),
                       ["Range: bytes=0-1048575", "If-Range: \"abc\""])
    }

    func test_R18_closedRangeIfRangeChoice() {
        let range = RequestedRange(start: 1_048_576, end: 2_097_152)
        let weak = StoredProgress(offset: 0, etag: "W/\"abc\"", lastModified: mdate)
        XCTAssertEqual(ResumeDecision.requestHeaders(for: weak, range: range),
                       ["Range: bytes=1048576-2097151", "If-Range: \(mdate)"])
        let onlyDate = StoredProgress(offset: 0, lastModified: mdate)
        XCTAssertEqual(ResumeDecision.requestHeaders(for: onlyDate, range: range),
                       ["Range: bytes=1048576-2097151", "If-Range: \(mdate)"])
        let onlyWeak = StoredProgress(offset: 0, etag: "W/\"abc\"")
        XCTAssertEqual(ResumeDecision.requestHeaders(for: onlyWeak, range: range), ["Range: bytes=1048576-2097151"])
        XCTAssertEqual(ResumeDecision.requestHeaders(for: StoredProgress(offset: 0), range: range),
                       ["Range: bytes=1048576-2097151"])
    }

    func test_R18_rangeNotOffsetDecidesTheHeader() {
        // A segment's request starts at its own place, whatever the stored offset says.
        let stored = StoredProgress(offset: 4096, etag: "\"abc\"")
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored, range: .from(0)), [])
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored, range: .from(10)), ["Range: bytes=10-", "If-Range: \"abc\""])
        XCTAssertEqual(ResumeDecision.requestHeaders(for: stored, range: .from(4096)), ResumeDecision.requestHeaders(for: stored))
    }

    // MARK: R18 closed ranges: response

    private let segment = RequestedRange(start: 100, end: 200)
    private let known = StoredProgress(offset: 0, total: 1000, etag: "\"a\"")

    func test_R18_206ExactMatchAppends() {
        let response = ResponseHead(status: 206, contentRange: range(100, 199, 1000), contentLength: 100, etag: "\"a\"")
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response), .append(total: 1000))
        let first = ResponseHead(status: 206, contentRange: range(0, 99, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 100), stored: known, response: first),
                       .append(total: 1000))
    }

    func test_R18_206WithUnknownTotalKeepsStoredTotal() {
        let response = ResponseHead(status: 206, contentRange: range(100, 199, nil))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response), .append(total: 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 100), stored: known,
                                             response: ResponseHead(status: 206, contentRange: range(0, 99, nil))),
                       .append(total: 1000), "a closed range from 0 still relies on the stored total")
    }

    func test_R18_206EndingEarlyStartsOver() {
        let response = ResponseHead(status: 206, contentRange: range(100, 149, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response),
                       .startOver(total: 1000, reason: "Content-Range bytes 100-149/1000 does not match the request bytes=100-199"))
    }

    func test_R18_206EndingLateStartsOver() {
        let response = ResponseHead(status: 206, contentRange: range(100, 999, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response),
                       .startOver(total: 1000, reason: "Content-Range bytes 100-999/1000 does not match the request bytes=100-199"))
    }

    func test_R18_206StartingElsewhereStartsOver() {
        let fromZero = ResponseHead(status: 206, contentRange: range(0, 99, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: fromZero),
                       .startOver(total: 1000, reason: "Content-Range bytes 0-99/1000 does not match the request bytes=100-199"))
        let later = ResponseHead(status: 206, contentRange: range(150, 249, nil))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: later),
                       .startOver(total: nil, reason: "Content-Range bytes 150-249/* does not match the request bytes=100-199"))
    }

    func test_R18_206WithoutContentRangeStartsOver() {
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: ResponseHead(status: 206)),
                       .startOver(total: nil, reason: "206 without a usable Content-Range"))
        let unsatisfied = ResponseHead(status: 206, contentRange: ContentRange(start: nil, end: nil, total: 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: unsatisfied),
                       .startOver(total: nil, reason: "206 without a usable Content-Range"))
    }

    func test_R18_206WithChangedTotalStartsOver() {
        let response = ResponseHead(status: 206, contentRange: range(100, 199, 2000), etag: "\"a\"")
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response),
                       .startOver(total: 2000, reason: "file changed on the server (total 1000 → 2000)"))
        let fromZero = ResponseHead(status: 206, contentRange: range(0, 99, 2000))
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 100), stored: known, response: fromZero),
                       .startOver(total: 2000, reason: "file changed on the server (total 1000 → 2000)"))
    }

    func test_R18_206WithChangedStrongETagStartsOver() {
        let response = ResponseHead(status: 206, contentRange: range(100, 199, 1000), etag: "\"b\"")
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response),
                       .startOver(total: 1000, reason: "file changed on the server (ETag \"a\" → \"b\")"))
        // The open-ended resume follows the same rule.
        let resumed = ResponseHead(status: 206, contentRange: range(100, 999, 1000), etag: "\"b\"")
        XCTAssertEqual(ResumeDecision.decide(stored: StoredProgress(offset: 100, total: 1000, etag: "\"a\""), response: resumed),
                       .startOver(total: 1000, reason: "file changed on the server (ETag \"a\" → \"b\")"))
    }

    func test_R18_206WithDifferingWeakOrMissingETagIsNoChange() {
        let weakNew = ResponseHead(status: 206, contentRange: range(100, 199, 1000), etag: "W/\"b\"")
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: weakNew), .append(total: 1000))
        let weakOld = StoredProgress(offset: 0, total: 1000, etag: "W/\"a\"")
        let strongNew = ResponseHead(status: 206, contentRange: range(100, 199, 1000), etag: "\"b\"")
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: weakOld, response: strongNew), .append(total: 1000))
        let noETag = ResponseHead(status: 206, contentRange: range(100, 199, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: noETag), .append(total: 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: StoredProgress(offset: 0, total: 1000), response: strongNew),
                       .append(total: 1000))
    }

    func test_R18_200ToClosedRangeFromZeroMeansRangesIgnored() {
        let request = RequestedRange(start: 0, end: 100)
        let response = ResponseHead(status: 200, contentLength: 1000, etag: "\"a\"")
        XCTAssertEqual(ResumeDecision.decide(requested: request, stored: known, response: response),
                       .startOver(total: 1000, reason: "the server ignores ranges (200 to bytes=0-99)"))
        XCTAssertTrue(ResumeDecision.bodyStartsAtZero(response))
        // The total known only from this answer is enough to tell.
        XCTAssertEqual(ResumeDecision.decide(requested: request, stored: StoredProgress(offset: 0),
                                             response: ResponseHead(status: 200, contentLength: 1000)),
                       .startOver(total: 1000, reason: "the server ignores ranges (200 to bytes=0-99)"))
    }

    func test_R18_200ToClosedRangeFromZeroThatChangedSaysSo() {
        let response = ResponseHead(status: 200, contentLength: 1000, etag: "\"b\"")
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 100), stored: known, response: response),
                       .startOver(total: 1000, reason: "file changed on the server (ETag \"a\" → \"b\")"))
        let longer = ResponseHead(status: 200, contentLength: 2000)
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 100), stored: known, response: longer),
                       .startOver(total: 2000, reason: "file changed on the server (total 1000 → 2000)"))
    }

    func test_R18_200ToClosedRangeCoveringTheWholeFileStillStartsOver() {
        let response = ResponseHead(status: 200, contentLength: 1000)
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 0, end: 1000), stored: known, response: response),
                       .startOver(total: 1000, reason: "server ignored the range (200)"))
    }

    func test_R18_200ToClosedRangeFromNStartsOver() {
        let response = ResponseHead(status: 200, contentLength: 1000)
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: response),
                       .startOver(total: 1000, reason: "server ignored the range (200)"))
        let changed = ResponseHead(status: 200, contentLength: 1000, lastModified: "Mon, 07 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(ResumeDecision.decide(requested: segment,
                                             stored: StoredProgress(offset: 0, total: 1000, lastModified: mdate),
                                             response: changed),
                       .startOver(total: 1000,
                                  reason: "file changed on the server (Last-Modified \(mdate) → Mon, 07 Nov 1994 08:49:37 GMT)"))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: ResponseHead(status: 204)),
                       .startOver(total: nil, reason: "server ignored the range (204)"))
    }

    func test_R18_200ToOpenRequestFromZeroAppends() {
        XCTAssertEqual(ResumeDecision.decide(requested: .from(0), stored: known, response: ResponseHead(status: 200, contentLength: 77)),
                       .append(total: 77), "a plain GET takes the file as it is, whatever was stored")
    }

    func test_R18_416ToClosedRangeStartsOver() {
        let shorter = ResponseHead(status: 416, contentRange: ContentRange(start: nil, end: nil, total: 150))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: shorter),
                       .startOver(total: 150, reason: "server refused the range bytes=100-199 (416)"))
        // Even a segment that starts at the known total is not "done": the plan was wrong.
        XCTAssertEqual(ResumeDecision.decide(requested: RequestedRange(start: 1000, end: 1100), stored: known,
                                             response: ResponseHead(status: 416)),
                       .startOver(total: nil, reason: "server refused the range bytes=1000-1099 (416)"))
        XCTAssertEqual(ResumeDecision.decide(requested: .from(1000), stored: known, response: ResponseHead(status: 416)),
                       .alreadyComplete(total: 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: .from(500), stored: known, response: ResponseHead(status: 416)),
                       .startOver(total: nil, reason: "server refused the range bytes=500- (416)"))
    }

    func test_R18_errorStatusesFailForClosedRanges() {
        for status in [400, 403, 404, 500, 503, 304] {
            XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: known, response: ResponseHead(status: status, retryAfter: 3)),
                           .fail(.http(status: status, retryAfter: 3)), "\(status)")
        }
    }

    func test_R18_requestStartNotStoredOffsetIsJudged() {
        // stored.offset is only the task's progress; the request is what the answer must match.
        let stored = StoredProgress(offset: 700, total: 1000)
        let response = ResponseHead(status: 206, contentRange: range(100, 199, 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: segment, stored: stored, response: response), .append(total: 1000))
        XCTAssertEqual(ResumeDecision.decide(requested: .from(100), stored: stored,
                                             response: ResponseHead(status: 206, contentRange: range(100, 999, 1000))),
                       .append(total: 1000))
    }

    func test_R18_oldDecideIsTheOpenRangeFromTheStoredOffset() {
        var random = SeededGenerator.fromEnvironment()
        for _ in 0..<2000 {
            let stored = randomStored(&random)
            let response = random206Or200Or416(&random, near: stored.offset)
            XCTAssertEqual(ResumeDecision.decide(stored: stored, response: response),
                           ResumeDecision.decide(requested: .from(stored.offset), stored: stored, response: response),
                           "\(stored) \(response) \(random)")
            XCTAssertEqual(ResumeDecision.requestHeaders(for: stored),
                           ResumeDecision.requestHeaders(for: stored, range: .from(stored.offset)), "\(stored) \(random)")
        }
    }

    /// Property: a 206 is appended iff it covers exactly the request and its total and
    /// strong ETag do not contradict what is stored (checked only for ranged requests).
    func test_R18_randomised206AppendsExactlyWhenItMatches() {
        var random = SeededGenerator.fromEnvironment()
        let etags: [String?] = [nil, "\"a\"", "\"b\"", "W/\"a\"", "W/\"b\""]
        for _ in 0..<5000 {
            let fileSize = Int64.random(in: 1...10_000, using: &random)
            let start = Int64.random(in: 0..<fileSize, using: &random)
            let end: Int64? = Bool.random(using: &random) ? Int64.random(in: (start + 1)...fileSize, using: &random) : nil
            let request = RequestedRange(start: start, end: end)
            let stored = StoredProgress(offset: Int64.random(in: 0...fileSize, using: &random),
                                        total: Bool.random(using: &random) ? fileSize : nil,
                                        etag: etags.randomElement(using: &random)!)

            // Usually the matching answer, sometimes shifted at either end, with a total and ETag that may differ.
            let wantedLast = (end ?? fileSize) - 1
            var crStart = start, crEnd = wantedLast
            if Int.random(in: 0..<4, using: &random) == 0 { crStart += Int64.random(in: -3...3, using: &random) }
            if Int.random(in: 0..<4, using: &random) == 0 { crEnd += Int64.random(in: -3...3, using: &random) }
            crStart = max(0, crStart)
            crEnd = max(crStart, crEnd)
            let crTotal: Int64? = [nil, fileSize, fileSize + 1, crEnd + 1].randomElement(using: &random)!
            let response = ResponseHead(status: 206, contentRange: ContentRange(start: crStart, end: crEnd, total: crTotal),
                                        etag: etags.randomElement(using: &random)!)

            let ranged = !(start == 0 && end == nil)
            let rangeMatches = crStart == start && (end == nil || crEnd == end! - 1)
            let totalConflicts = ranged && stored.total != nil && crTotal != nil && stored.total != crTotal
            let etagConflicts: Bool = {
                guard ranged, let old = stored.etag, let new = response.etag else { return false }
                return !old.hasPrefix("W/") && !new.hasPrefix("W/") && old != new
            }()
            let decision = ResumeDecision.decide(requested: request, stored: stored, response: response)
            let context = "\(request) \(stored) \(response) → \(decision); \(random)"
            if rangeMatches && !totalConflicts && !etagConflicts {
                XCTAssertEqual(decision, .append(total: crTotal ?? (ranged ? stored.total : nil)), context)
            } else {
                guard case .startOver = decision else { return XCTFail("expected startOver: " + context) }
            }
        }
    }

    private func randomStored(_ random: inout SeededGenerator) -> StoredProgress {
        StoredProgress(offset: Int64.random(in: -2...20, using: &random),
                       total: [nil, 10, 20].randomElement(using: &random)!,
                       etag: [nil, "\"a\"", "W/\"a\"", "\"b\""].randomElement(using: &random)!,
                       lastModified: [nil, mdate].randomElement(using: &random)!)
    }

    private func random206Or200Or416(_ random: inout SeededGenerator, near offset: Int64) -> ResponseHead {
        let status = [200, 204, 206, 206, 416, 404].randomElement(using: &random)!
        let start = max(0, offset + Int64.random(in: -1...1, using: &random))
        let contentRange: ContentRange? = [nil, ContentRange(start: start, end: start + 5, total: [nil, 10, 20, 30].randomElement(using: &random)!),
                                           ContentRange(start: nil, end: nil, total: [10, 20].randomElement(using: &random)!)]
            .randomElement(using: &random)!
        return ResponseHead(status: status, contentRange: contentRange,
                            contentLength: [nil, 10, 20].randomElement(using: &random)!,
                            etag: [nil, "\"a\"", "\"b\"", "W/\"b\""].randomElement(using: &random)!,
                            lastModified: [nil, mdate, "Mon, 07 Nov 1994 08:49:37 GMT"].randomElement(using: &random)!)
    }
}
