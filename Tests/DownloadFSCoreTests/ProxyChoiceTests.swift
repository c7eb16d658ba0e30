import XCTest
@testable import DownloadFSCore

/// R55: the proxy curl takes from the environment, named when it fails.
final class ProxyChoiceTests: XCTestCase {
    func test_R55_theSchemesVariableThenAllProxy() {
        let env = ["http_proxy": "http://p1:3128", "https_proxy": "http://user:pw@p2:8080/", "all_proxy": "socks5://p3:1080"]
        XCTAssertEqual(ProxyChoice.proxy(for: "http://example.com/a", environment: env), "p1:3128")
        XCTAssertEqual(ProxyChoice.proxy(for: "https://example.com/a", environment: env), "p2:8080")
        XCTAssertEqual(ProxyChoice.proxy(for: "ftp://example.com/a", environment: env), "p3:1080")
        XCTAssertNil(ProxyChoice.proxy(for: "http://example.com/a", environment: [:]))
    }

    /// curl ignores HTTP_PROXY (a CGI request can set it) but takes HTTPS_PROXY.
    func test_R55_uppercaseOnlyForSchemesOtherThanHTTP() {
        XCTAssertNil(ProxyChoice.proxy(for: "http://example.com/a", environment: ["HTTP_PROXY": "p:1"]))
        XCTAssertEqual(ProxyChoice.proxy(for: "https://example.com/a", environment: ["HTTPS_PROXY": "p:1"]), "p:1")
        XCTAssertEqual(ProxyChoice.proxy(for: "http://example.com/a", environment: ["ALL_PROXY": "p:2"]), "p:2")
    }

    func test_R55_noProxyNamesHostsAndDomains() {
        let env = ["http_proxy": "p:1", "no_proxy": "localhost, .internal.example,10.0.0.1"]
        XCTAssertNil(ProxyChoice.proxy(for: "http://localhost:8080/a", environment: env))
        XCTAssertNil(ProxyChoice.proxy(for: "http://files.internal.example/a", environment: env))
        XCTAssertNil(ProxyChoice.proxy(for: "http://internal.example/a", environment: env))
        XCTAssertNil(ProxyChoice.proxy(for: "http://10.0.0.1/a", environment: env))
        XCTAssertEqual(ProxyChoice.proxy(for: "http://notinternal.example/a", environment: env), "p:1")
        XCTAssertNil(ProxyChoice.proxy(for: "http://x/a", environment: ["http_proxy": "p:1", "NO_PROXY": "*"]))
    }
}
