import CCurl
import DownloadFSCore
import XCTest
@testable import Engine

/// `CurlFailure.from` for CURLE_UNSUPPORTED_PROTOCOL: the URL's scheme was
/// checked at input (R11), so curl's "HTTP/0.9" (an answer that is no
/// HTTP head: bytes left over on a reused connection) is transient, a
/// redirect elsewhere is refused for good (R55), and anything else is a
/// bad URL.
final class CurlFailureTests: XCTestCase {
    func test_R53_anAnswerThatIsNoHTTPIsTransientNotABadURL() {
        let failure = CurlFailure.from(CURLE_UNSUPPORTED_PROTOCOL, receivedData: false, redirects: 0,
                                       detail: "Received HTTP/0.9 when not allowed", url: "http://h/x")
        XCTAssertTrue(failure.isTransient, "\(failure)")
        XCTAssertFalse(failure.message.contains("bad URL"), failure.message)
    }

    func test_R55_aRedirectToAnotherSchemeIsRefusedForGood() {
        let failure = CurlFailure.from(CURLE_UNSUPPORTED_PROTOCOL, receivedData: false, redirects: 1,
                                       detail: "Protocol \"file\" not supported", url: "http://h/x")
        XCTAssertEqual(failure, .forbiddenRedirect("a protocol other than http, https, ftp or ftps"))
        XCTAssertFalse(failure.isTransient)
    }

    func test_R11_anyOtherUnsupportedProtocolIsABadURL() {
        let failure = CurlFailure.from(CURLE_UNSUPPORTED_PROTOCOL, receivedData: false, redirects: 0,
                                       detail: "Protocol \"gopher\" not supported", url: "gopher://h/x")
        XCTAssertEqual(failure, .badURL("unsupported protocol"))
    }
}
