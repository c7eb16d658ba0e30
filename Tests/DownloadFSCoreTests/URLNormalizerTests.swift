import XCTest
@testable import DownloadFSCore

/// R13 (same URL, same task) and R41 (credentials stripped).
final class URLNormalizerTests: XCTestCase {
    func test_R13_schemeAndHostLowercased() {
        XCTAssertEqual(URLNormalizer.normalize("HTTPS://Example.COM/Path/File.ISO"), "https://example.com/Path/File.ISO")
    }

    func test_R13_defaultPortDroppedPerScheme() {
        XCTAssertEqual(URLNormalizer.normalize("http://h:80/x"), "http://h/x")
        XCTAssertEqual(URLNormalizer.normalize("https://h:443/x"), "https://h/x")
        XCTAssertEqual(URLNormalizer.normalize("ftp://h:21/x"), "ftp://h/x")
        XCTAssertEqual(URLNormalizer.normalize("ftps://h:990/x"), "ftps://h/x")
        XCTAssertEqual(URLNormalizer.normalize("HTTP://h:080/x"), "http://h/x")
    }

    func test_R13_otherPortsKept() {
        XCTAssertEqual(URLNormalizer.normalize("http://h:443/x"), "http://h:443/x")
        XCTAssertEqual(URLNormalizer.normalize("https://h:8443/x"), "https://h:8443/x")
        XCTAssertEqual(URLNormalizer.normalize("http://[::1]:8080/x"), "http://[::1]:8080/x")
        XCTAssertEqual(URLNormalizer.normalize("http://[FE80::1]:80/x"), "http://[fe80::1]/x")
    }

    /// A URL that is normal already comes back as it is (not rebuilt);
    /// anything to change still is, non-ASCII hosts included.
    func test_R13_normalURLsComeBackUnchangedAndOthersAreStillNormalised() {
        for url in ["http://h/x", "http://h:/x", "https://h:8443/a?b", "ftp://u:p@h.example/f", "http://[::1]/x"] {
            XCTAssertEqual(URLNormalizer.normalize(url), url)
        }
        XCTAssertEqual(URLNormalizer.normalize("http://ÄÖ.example/x"), "http://äö.example/x")
        XCTAssertEqual(URLNormalizer.normalize("http://h:0080/x"), "http://h/x")
        XCTAssertEqual(URLNormalizer.normalize("Http://h/x"), "http://h/x")
    }

    func test_R13_fragmentDropped() {
        XCTAssertEqual(URLNormalizer.normalize("http://h/x?a=1#section"), "http://h/x?a=1")
        XCTAssertEqual(URLNormalizer.normalize("http://h#frag"), "http://h")
    }

    func test_R13_everythingElseVerbatim() {
        let url = "http://User:PW@h/A%2fB/./c?Q=Z&b=%20#"
        XCTAssertEqual(URLNormalizer.normalize(url), "http://User:PW@h/A%2fB/./c?Q=Z&b=%20")
        XCTAssertEqual(URLNormalizer.normalize("http://h"), "http://h")
        XCTAssertNotEqual(URLNormalizer.normalize("http://h/a"), URLNormalizer.normalize("http://h/A"))
    }

    func test_R13_equivalentSpellingsNormaliseEqual() {
        let a = URLNormalizer.normalize("HTTP://EXAMPLE.com:80/file.iso#top")
        let b = URLNormalizer.normalize("http://example.com/file.iso")
        XCTAssertEqual(a, b)
    }

    func test_R41_credentialsStripped() {
        XCTAssertEqual(URLNormalizer.strippingCredentials("https://user:secret@Host.example:8443/p?q#f"),
                       "https://Host.example:8443/p?q#f")
        XCTAssertEqual(URLNormalizer.strippingCredentials("ftp://anonymous@h/x"), "ftp://h/x")
        XCTAssertEqual(URLNormalizer.strippingCredentials("http://h/a@b"), "http://h/a@b")
        XCTAssertEqual(URLNormalizer.strippingCredentials("http://h/x"), "http://h/x")
    }

    func test_R6_passwordShownAsStars() {
        XCTAssertEqual(URLNormalizer.maskingPassword("ftp://user:secret@h/x"), "ftp://user:***@h/x")
        XCTAssertEqual(URLNormalizer.maskingPassword("https://u:p:q@h:8443/p?q#f"), "https://u:***@h:8443/p?q#f")
        XCTAssertEqual(URLNormalizer.maskingPassword("https://u:@h/"), "https://u:***@h/")
        XCTAssertEqual(URLNormalizer.maskingPassword("ftp://anonymous@h/x"), "ftp://anonymous@h/x")
        XCTAssertEqual(URLNormalizer.maskingPassword("http://h/a:b@c"), "http://h/a:b@c")
        XCTAssertEqual(URLNormalizer.maskingPassword("not a url"), "not a url")
    }
}
