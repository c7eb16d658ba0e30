import XCTest
@testable import DownloadFSCore

/// R55: a TLS failure names its cause, from curl's (OpenSSL's) words.
final class TLSProblemTests: XCTestCase {
    private func problem(_ detail: String) -> TLSProblem { TLSProblem(curlDetail: detail, host: "example.com") }

    func test_R55_eachCauseInWords() {
        XCTAssertEqual(problem("SSL certificate problem: self-signed certificate"), .selfSigned)
        XCTAssertEqual(problem("SSL certificate problem: self signed certificate"), .selfSigned)
        XCTAssertEqual(problem("SSL certificate problem: unable to get local issuer certificate"), .unknownIssuer)
        XCTAssertEqual(problem("SSL certificate problem: self-signed certificate in certificate chain"), .unknownIssuer)
        XCTAssertEqual(problem("SSL: no alternative certificate subject name matches target host name '127.0.0.1'"),
                       .nameMismatch(host: "127.0.0.1"))
        XCTAssertEqual(problem("SSL: certificate subject name 'a.test' does not match target host name 'b.test'"),
                       .nameMismatch(host: "b.test"))
        XCTAssertEqual(problem("SSL certificate problem: certificate has expired"), .expired)
        XCTAssertEqual(problem("SSL certificate problem: certificate is not yet valid"), .notYetValid)
        XCTAssertEqual(problem("OpenSSL SSL_connect: Connection reset by peer"), .other("OpenSSL SSL_connect: Connection reset by peer"))
    }

    func test_R55_theWordsTheUserReads() {
        XCTAssertEqual(TLSProblem.selfSigned.message,
                       "TLS: the server's certificate is self-signed; trust its CA with --ca-certificate FILE (or the system store) if you expect it")
        XCTAssertTrue(TLSProblem.unknownIssuer.message.contains("unknown issuer"))
        XCTAssertEqual(TLSProblem.nameMismatch(host: "127.0.0.1").message,
                       "TLS: the server's certificate name does not match 127.0.0.1; use the host name the certificate is for")
        XCTAssertTrue(TLSProblem.expired.message.contains("expired"))
        XCTAssertEqual(TLSProblem.other("").message, "TLS error")
    }
}
