import DownloadFSCore
import XCTest

final class HostKeyTests: XCTestCase {
    func test_R18_connectionsAreCountedPerSchemeHostAndPort() {
        XCTAssertEqual(HostKey.of("http://Example.COM/a"), HostKey.of("HTTP://example.com/b?x"), "case of scheme and host")
        XCTAssertEqual(HostKey.of("http://user:pw@example.com/a"), HostKey.of("http://example.com/a"), "credentials aside")
        XCTAssertNotEqual(HostKey.of("http://example.com/a"), HostKey.of("https://example.com/a"))
        XCTAssertNotEqual(HostKey.of("http://example.com:8080/a"), HostKey.of("http://example.com/a"))
        XCTAssertNotEqual(HostKey.of("http://[::1]:80/a"), HostKey.of("http://127.0.0.1:80/a"))
        XCTAssertEqual(HostKey.of("not a url"), "not a url", "anything else counts as itself")
    }
}
