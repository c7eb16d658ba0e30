import XCTest
@testable import DownloadFSCore

/// R10 `load-cookies=FILE`: reading a Netscape/Mozilla cookies.txt.
final class NetscapeCookiesTests: XCTestCase {
    func test_R10_readsSevenTabSeparatedFieldsPerCookie() {
        let parsed = NetscapeCookies.parse(".Example.COM\tTRUE\t/docs\tTRUE\t2000000000\tsid\ta=b; c\n")
        XCTAssertEqual(parsed.cookies, [Cookie(domain: "example.com", includeSubdomains: true, path: "/docs", secure: true,
                                               expires: 2_000_000_000, name: "sid", value: "a=b; c")])
        XCTAssertTrue(parsed.malformed.isEmpty)
    }

    func test_R10_commentsBlankLinesAndCRLFAreSkipped() {
        let text = "# Netscape HTTP Cookie File\r\n# https://curl.se/docs/http-cookies.html\r\n\r\n  \t\r\n"
            + "example.com\tFALSE\t/\tFALSE\t0\tk\tv\r\n"
        let parsed = NetscapeCookies.parse(text)
        XCTAssertEqual(parsed.cookies, [Cookie(domain: "example.com", includeSubdomains: false, name: "k", value: "v")])
        XCTAssertTrue(parsed.malformed.isEmpty)
    }

    func test_R10_httpOnlyPrefixIsACookieNotAComment() {
        let parsed = NetscapeCookies.parse("#HttpOnly_.example.com\tTRUE\t/\tFALSE\t0\th\t1\n#HttpOnly comment\n")
        XCTAssertEqual(parsed.cookies, [Cookie(domain: "example.com", includeSubdomains: true, name: "h", value: "1",
                                               httpOnly: true)])
        XCTAssertTrue(parsed.malformed.isEmpty)
    }

    func test_R10_aByteOrderMarkAndIPv6BracketsAreDropped() {
        let parsed = NetscapeCookies.parse("\u{FEFF}[::1]\tFALSE\t/\tFALSE\t0\tn\tv\n")
        XCTAssertEqual(parsed.cookies.map(\.domain), ["::1"])
        XCTAssertTrue(parsed.cookies[0].matches(url: "http://[::1]:8080/a", now: 0))
    }

    func test_R10_sixFieldsIsAnEmptyValueAsCurlReadsIt() {
        XCTAssertEqual(NetscapeCookies.parse("h\tFALSE\t/\tFALSE\t0\tempty\n").cookies.map(\.value), [""])
    }

    func test_R10_malformedLinesAreSkippedAndNamed() {
        let text = """
        good.example\tFALSE\t/\tFALSE\t0\tok\t1
        spaces instead of tabs FALSE / FALSE 0 n v
        a.example\tMAYBE\t/\tFALSE\t0\tn\tv
        a.example\tFALSE\tnoslash\tFALSE\t0\tn\tv
        a.example\tFALSE\t/\tyes\t0\tn\tv
        a.example\tFALSE\t/\tFALSE\tsoon\tn\tv
        a.example\tFALSE\t/\tFALSE\t-5\tn\tv
        a.example\tFALSE\t/\tFALSE\t0\t\tv
        \tFALSE\t/\tFALSE\t0\tn\tv
        a.example\tFALSE\t/\tFALSE\t0\tn\tv\textra
        """
        let parsed = NetscapeCookies.parse(text)
        XCTAssertEqual(parsed.cookies.map(\.name), ["ok"])
        XCTAssertEqual(parsed.malformed.map(\.line), Array(2...10))
        XCTAssertEqual(parsed.malformed.first?.reason, "expected 7 TAB-separated fields, found 1")
        XCTAssertEqual(parsed.malformed[1].reason, "include-subdomains is \"MAYBE\", not TRUE or FALSE")
    }

    func test_R10_flagsAreCaseInsensitiveAndAHugeExpiryIsNever() {
        let parsed = NetscapeCookies.parse("h\ttrue\t/\tFalse\t99999999999999999999999\tn\tv\n")
        XCTAssertEqual(parsed.cookies.first?.includeSubdomains, true)
        XCTAssertEqual(parsed.cookies.first?.secure, false)
        XCTAssertEqual(parsed.cookies.first?.expires, Int64.max)
    }
}
