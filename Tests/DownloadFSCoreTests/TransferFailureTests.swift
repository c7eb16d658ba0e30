import XCTest
@testable import DownloadFSCore

/// R20 (error sentences), R53 (transient vs permanent), R54, R55.
final class TransferFailureTests: XCTestCase {
    func test_R20_httpErrorSentence() {
        XCTAssertEqual(TransferFailure.http(status: 404, retryAfter: nil).message, "HTTP 404 Not Found")
        XCTAssertEqual(TransferFailure.http(status: 503, retryAfter: 5).message, "HTTP 503 Service Unavailable")
        XCTAssertEqual(TransferFailure.http(status: 599, retryAfter: nil).message, "HTTP 599")
    }

    func test_R20_otherSentences() {
        XCTAssertEqual(TransferFailure.connectionReset.message, "connection reset")
        XCTAssertEqual(TransferFailure.connectionRefused.message, "connection refused")
        XCTAssertEqual(TransferFailure.timedOut.message, "connection timed out")
        XCTAssertEqual(TransferFailure.dnsFailure.message, "could not resolve host")
        XCTAssertEqual(TransferFailure.tooManyRedirects.message, "too many redirects (more than 10)")
        XCTAssertEqual(TransferFailure.forbiddenRedirect("file").message, "redirect to a forbidden scheme: file")
        XCTAssertEqual(TransferFailure.writeError(errno: 28, message: "No space left on device").message,
                       "No space left on device")
        XCTAssertEqual(TransferFailure.other(code: 56, message: "Recv failure").message, "Recv failure")
        XCTAssertEqual(TransferFailure.other(code: 56, message: "").message, "transfer error (curl code 56)")
        XCTAssertEqual(TransferFailure.tls(.expired).message, "TLS: the server's certificate has expired")
    }

    func test_R53_transientFailures() {
        let transient: [TransferFailure] = [
            .connectionRefused, .connectionReset, .timedOut, .partialBody, .dnsFailure, .stalled,
            .other(code: 56, message: "x"),
        ] + [408, 429, 500, 502, 503, 504].map { .http(status: $0, retryAfter: nil) }
        for failure in transient {
            XCTAssertTrue(failure.isTransient, failure.message)
        }
    }

    func test_R53_permanentFailures() {
        let permanent: [TransferFailure] = [
            .tooManyRedirects, .forbiddenRedirect("file"), .tls(.other("bad cert")), .badURL("x"),
            .refused("the FTP server has no such file"), .headerTooLarge,
            .writeError(errno: 28, message: "No space left on device"), .writeError(errno: 5, message: "Input/output error"),
        ] + [400, 401, 403, 404, 405, 410, 416, 451, 501, 505, 300, 304].map { .http(status: $0, retryAfter: nil) }
        for failure in permanent {
            XCTAssertFalse(failure.isTransient, failure.message)
        }
    }

    func test_R53_every4xxOtherThan408And429IsPermanent() {
        for status in 400...499 where status != 408 && status != 429 {
            XCTAssertFalse(TransferFailure.http(status: status, retryAfter: nil).isTransient, "\(status)")
        }
    }

    func test_R53_retryAfterIsExposed() {
        XCTAssertEqual(TransferFailure.http(status: 429, retryAfter: 30).retryAfter, 30)
        XCTAssertNil(TransferFailure.connectionReset.retryAfter)
    }

    func test_R20_reasonPhrases() {
        XCTAssertEqual(HTTPStatus.reasonPhrase(200), "OK")
        XCTAssertEqual(HTTPStatus.reasonPhrase(416), "Range Not Satisfiable")
        XCTAssertEqual(HTTPStatus.reasonPhrase(429), "Too Many Requests")
        XCTAssertEqual(HTTPStatus.reasonPhrase(799), "")
    }

    func test_R55_hugeHeaderSaysWhatHappened() {
        XCTAssertFalse(TransferFailure.headerTooLarge.isTransient)
        XCTAssertTrue(TransferFailure.headerTooLarge.message.contains("header"))
        XCTAssertFalse(TransferFailure.headerTooLarge.message.contains("memory"))
    }

    func test_R54_aFullDiskOrQuotaIsDiskFullAndNothingElse() {
        XCTAssertTrue(TransferFailure.writeError(errno: 28, message: "No space left on device").isDiskFull)
        XCTAssertTrue(TransferFailure.writeError(errno: 122, message: "Disk quota exceeded").isDiskFull)
        XCTAssertFalse(TransferFailure.writeError(errno: 5, message: "Input/output error").isDiskFull)
        XCTAssertFalse(TransferFailure.connectionReset.isDiskFull)
    }
}
