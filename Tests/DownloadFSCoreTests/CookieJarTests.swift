import XCTest
@testable import DownloadFSCore

/// R10 `load-cookies=FILE`: which cookies a task keeps and each request sends.
final class CookieJarTests: XCTestCase {
    private let now: Int64 = 1_800_000_000

    private func cookie(_ domain: String, subdomains: Bool = false, path: String = "/", secure: Bool = false,
                        expires: Int64 = 0, name: String = "n") -> Cookie {
        Cookie(domain: domain, includeSubdomains: subdomains, path: path, secure: secure, expires: expires,
               name: name, value: "v")
    }

    func test_R10_hostOnlyCookieMatchesItsHostAlone() {
        let c = cookie("example.com")
        XCTAssertTrue(c.matches(url: "http://example.com/a", now: now))
        XCTAssertTrue(c.matches(url: "http://EXAMPLE.com:8080/a", now: now))
        XCTAssertFalse(c.matches(url: "http://www.example.com/a", now: now))
        XCTAssertFalse(c.matches(url: "http://notexample.com/a", now: now))
    }

    func test_R10_includeSubdomainsCoversSubdomainsOnADotBoundary() {
        let c = cookie("example.com", subdomains: true)
        XCTAssertTrue(c.matches(url: "http://example.com/", now: now))
        XCTAssertTrue(c.matches(url: "https://a.b.example.com/", now: now))
        XCTAssertFalse(c.matches(url: "http://badexample.com/", now: now))
        XCTAssertFalse(c.matches(url: "http://example.com.evil/", now: now))
    }

    func test_R10_aLeadingDotInTheFileDoesNotOverrideTheFlag() {
        let parsed = NetscapeCookies.parse(".example.com\tFALSE\t/\tFALSE\t0\tn\tv\n").cookies
        XCTAssertEqual(parsed.first?.domain, "example.com")
        XCTAssertTrue(parsed[0].matches(url: "http://example.com/", now: now))
        XCTAssertFalse(parsed[0].matches(url: "http://www.example.com/", now: now))
    }

    func test_R10_anIPAddressOnlyMatchesItself() {
        let c = cookie("0.0.1", subdomains: true)
        XCTAssertFalse(c.matches(url: "http://127.0.0.1/", now: now))
        XCTAssertTrue(cookie("127.0.0.1", subdomains: true).matches(url: "http://127.0.0.1:8080/x", now: now))
        XCTAssertTrue(cookie("::1").matches(url: "http://[::1]:8080/x", now: now))
    }

    func test_R10_pathMatchesAsAPrefixOnASlashBoundary() {
        let c = cookie("h", path: "/docs")
        XCTAssertTrue(c.matches(url: "http://h/docs", now: now))
        XCTAssertTrue(c.matches(url: "http://h/docs/a.iso?x=1", now: now))
        XCTAssertFalse(c.matches(url: "http://h/docsx", now: now))
        XCTAssertFalse(c.matches(url: "http://h/", now: now))
        XCTAssertTrue(cookie("h", path: "/docs/").matches(url: "http://h/docs/a", now: now))
        XCTAssertTrue(cookie("h").matches(url: "http://h", now: now))
    }

    func test_R10_aSecureCookieGoesOnlyOverHTTPS() {
        let c = cookie("h", secure: true)
        XCTAssertTrue(c.matches(url: "https://h/a", now: now))
        XCTAssertFalse(c.matches(url: "http://h/a", now: now))
        XCTAssertFalse(c.matches(url: "ftp://h/a", now: now))
    }

    func test_R10_sessionCookiesAreKeptExpiredOnesDropped() {
        XCTAssertTrue(cookie("h", expires: 0).matches(url: "http://h/", now: now))
        XCTAssertTrue(cookie("h", expires: now + 1).matches(url: "http://h/", now: now))
        XCTAssertFalse(cookie("h", expires: now).matches(url: "http://h/", now: now))
        XCTAssertFalse(cookie("h", expires: 1).matches(url: "http://h/", now: now))
    }

    func test_R10_aTaskKeepsTheUnexpiredCookiesOfItsOwnHostsAndMirrors() {
        let all = [cookie("a.example", name: "a"), cookie("example", subdomains: true, name: "wide"),
                   cookie("m.example", name: "mirror"), cookie("bank.example", name: "bank"),
                   cookie("a.example", expires: 5, name: "old"), cookie("a.example", path: "/elsewhere", name: "path")]
        let kept = CookieJar.kept(all, for: ["http://a.example/f", "https://m.example/f"], now: now)
        // Paths and the secure flag are matched per request, not at the add.
        XCTAssertEqual(kept.map(\.name), ["a", "wide", "mirror", "path"])
    }

    func test_R10_eachRequestGetsTheMatchingCookiesAsCookieFileLines() {
        let all = [cookie("h", path: "/f", name: "one"), cookie("h", subdomains: true, secure: true, name: "two"),
                   Cookie(domain: "h", includeSubdomains: false, name: "three", value: "x y", httpOnly: true)]
        XCTAssertEqual(CookieJar.lines(all, for: "http://h/f/x", now: now),
                       ["h\tFALSE\t/f\tFALSE\t0\tone\tv", "#HttpOnly_h\tFALSE\t/\tFALSE\t0\tthree\tx y"])
        XCTAssertEqual(CookieJar.lines(all, for: "https://h/", now: now),
                       [".h\tTRUE\t/\tTRUE\t0\ttwo\tv", "#HttpOnly_h\tFALSE\t/\tFALSE\t0\tthree\tx y"])
    }

    /// What the engine hands curl parses back to the same cookie.
    func test_R10_aCookieLineReadsBackAsTheSameCookie() {
        let c = Cookie(domain: "example.com", includeSubdomains: true, path: "/p", secure: true, expires: 42,
                       name: "n", value: "v", httpOnly: true)
        XCTAssertEqual(NetscapeCookies.parse(c.netscapeLine).cookies, [c])
    }
}
