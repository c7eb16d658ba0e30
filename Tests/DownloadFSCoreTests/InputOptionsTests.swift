import Foundation
import XCTest
@testable import DownloadFSCore

/// R10, R11: aria2's `referer`, `user-agent`, `http-user`, `http-passwd`,
/// `all-proxy` and `load-cookies` options, their refusals, and where they go.
final class InputOptionsTests: XCTestCase {
    private static let cookieText = """
        # Netscape HTTP Cookie File
        h\tFALSE\t/\tFALSE\t0\tsession\t1
        .h\tTRUE\t/\tFALSE\t1\texpired\t2
        other.example\tFALSE\t/\tFALSE\t0\tforeign\t3
        #HttpOnly_h\tFALSE\t/\tTRUE\t4000000000\tsecure\t4
        this line is not a cookie

        """

    /// A context whose only file is `/c/cookies.txt`, at a fixed time.
    private static let context = InputContext(readFile: { path in
        switch path {
        case "/c/cookies.txt": return .success(cookieText)
        case "/c/junk.txt": return .success("just some words\nand more\n")
        case "/c/empty.txt": return .success("# nothing here\n")
        default: return .failure(InputFileProblem(reason: "No such file or directory"))
        }
    }, now: { 1_800_000_000 })

    private func parse(_ text: String) throws -> [InputEntry] {
        var parser = InputParser(context: Self.context)
        return try parser.feed(Array(text.utf8)) + parser.finish()
    }

    private func options(_ lines: String...) throws -> TaskOptions {
        let entries = try parse("http://h/a\n" + lines.map { " \($0)\n" }.joined())
        XCTAssertEqual(entries.count, 1)
        return entries[0].options
    }

    private func refusal(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) -> String? {
        var parser = InputParser(context: Self.context)
        do {
            _ = try parser.feed(Array("http://h/a\n \(line)\n".utf8)) + parser.finish()
            XCTFail("accepted: \(line)", file: file, line: lineNumber)
            return nil
        } catch {
            XCTAssertEqual(error.line, 2, file: file, line: lineNumber)
            return error.reason
        }
    }

    // MARK: accepted

    func test_R10_eachOptionIsStoredWithTheTask() throws {
        let o = try options("referer=https://example.com/page", "user-agent=Mozilla/5.0 (X11; Linux)",
                            "http-user=alice", "http-passwd=s3 cr=t", "all-proxy=http://127.0.0.1:3128")
        XCTAssertEqual(o.referer, "https://example.com/page")
        XCTAssertEqual(o.userAgent, "Mozilla/5.0 (X11; Linux)")
        XCTAssertEqual(o.httpUser, "alice")
        XCTAssertEqual(o.httpPassword, "s3 cr=t")
        XCTAssertEqual(o.proxy, "http://127.0.0.1:3128")
        XCTAssertNil(o.cookies)
    }

    func test_R10_laterValuesReplaceEarlierOnesAsInAria2() throws {
        let o = try options("referer=http://a/", "referer=http://b/", "user-agent=one", "user-agent=two",
                            "http-user=u1", "http-user=u2", "http-passwd=p1", "http-passwd=p2",
                            "all-proxy=p1:1", "all-proxy=p2:2", "load-cookies=/c/empty.txt", "load-cookies=/c/cookies.txt")
        XCTAssertEqual([o.referer, o.userAgent, o.httpUser, o.httpPassword, o.proxy],
                       ["http://b/", "two", "u2", "p2", "p2:2"])
        XCTAssertEqual(o.cookies?.map(\.name), ["session", "secure"])
    }

    func test_R10_refererStarMeansEachRequestsOwnURL() throws {
        let o = try options("referer=*")
        XCTAssertEqual(o.referer, "*")
        let connection = ConnectionOptions(o)
        XCTAssertEqual(connection.referer(for: "http://u:pw@h/a?q#frag"), "http://h/a?q")
        XCTAssertEqual(ConnectionOptions(referer: "http://r/").referer(for: "http://h/a"), "http://r/")
        XCTAssertNil(ConnectionOptions().referer(for: "http://h/a"))
    }

    func test_R10_credentialsNeedAUserFromTheOptionOrTheURL() {
        let both = ConnectionOptions(user: "u", password: "p")
        XCTAssertTrue(both.credentials(for: "http://h/a") == ("u", "p"))
        let passwordOnly = ConnectionOptions(password: "p")
        XCTAssertTrue(passwordOnly.credentials(for: "http://h/a") == (nil, nil))
        XCTAssertTrue(passwordOnly.credentials(for: "ftp://bob@h/a") == (nil, "p"))
        XCTAssertTrue(ConnectionOptions(user: "u").credentials(for: "http://h/a") == ("u", nil))
    }

    func test_R10_anEmptyPasswordIsAPassword() throws {
        XCTAssertEqual(try options("http-passwd=").httpPassword, "")
    }

    func test_R10_proxyForms() throws {
        for proxy in ["127.0.0.1:3128", "http://proxy.example:8080", "https://p:443/", "socks5h://u:pw@p:1080",
                      "SOCKS4A://p", "http://[::1]:3128", "p"] {
            XCTAssertEqual(try options("all-proxy=\(proxy)").proxy, proxy)
        }
    }

    /// aria2: an empty `all-proxy` turns a proxy off; here it goes direct
    /// whatever the environment says.
    func test_R10_anEmptyProxyGoesDirect() throws {
        XCTAssertEqual(try options("all-proxy=").proxy, "")
        XCTAssertNil(ProxyChoice.proxy(for: "http://h/a", option: "", environment: ["http_proxy": "p:1"]))
    }

    func test_R10_theTasksProxyOverridesTheEnvironmentAndIsNamedAsSuch() {
        let env = ["http_proxy": "http://env:1", "no_proxy": "h"]
        XCTAssertEqual(ProxyChoice.proxy(for: "http://h/a", option: "http://u:secret@mine:3128/", environment: env)?.address,
                       "mine:3128")
        XCTAssertEqual(ProxyChoice.proxy(for: "http://h/a", option: "mine:3128", environment: env)?.source, .option)
        XCTAssertNil(ProxyChoice.proxy(for: "http://h/a", option: nil, environment: env))
        XCTAssertEqual(ProxyChoice.proxy(for: "http://x/a", option: nil, environment: env)?.source, .environment)
        let failure = TransferFailure.proxy(address: "127.0.0.1:9", reason: "connection refused", source: .option)
        XCTAssertEqual(failure.message, "proxy 127.0.0.1:9: connection refused (set by the task's all-proxy option)")
        XCTAssertTrue(failure.isTransient)
    }

    func test_R10_loadCookiesKeepsTheFilesMatchingUnexpiredCookiesAtTheAdd() throws {
        let cookies = try XCTUnwrap(try options("load-cookies=/c/cookies.txt").cookies)
        // `expired` is past, `foreign` another host's, the last line not a cookie.
        XCTAssertEqual(cookies.map(\.name), ["session", "secure"])
        XCTAssertEqual(cookies.last?.httpOnly, true)
        // A mirror's host counts too (R19).
        let entries = try parse("http://x/a\thttp://other.example/a\n load-cookies=/c/cookies.txt\n")
        XCTAssertEqual(entries.first?.options.cookies?.map(\.name), ["foreign"])
    }

    func test_R10_aFileWithoutCookiesForTheTaskGivesNone() throws {
        XCTAssertEqual(try options("load-cookies=/c/empty.txt").cookies, [])
    }

    func test_R10_eachConnectionSendsOnlyTheCookiesMatchingItsURL() throws {
        let connection = ConnectionOptions(try options("load-cookies=/c/cookies.txt"))
        XCTAssertEqual(connection.cookieLines(for: "http://h/a", now: 1_800_000_000), ["h\tFALSE\t/\tFALSE\t0\tsession\t1"])
        XCTAssertEqual(connection.cookieLines(for: "https://h/a", now: 1_800_000_000).count, 2)
        XCTAssertEqual(connection.cookieLines(for: "http://other.example/a", now: 1_800_000_000), [])
    }

    func test_R10_connectionOptionsCarryEveryOption() throws {
        let o = try options("header=X-A: 1", "user-agent=ua", "http-user=u", "http-passwd=p", "all-proxy=q:1")
        XCTAssertEqual(ConnectionOptions(o), ConnectionOptions(headers: ["X-A: 1"], userAgent: "ua", user: "u",
                                                               password: "p", proxy: "q:1"))
    }

    // MARK: refused (R11)

    func test_R11_malformedValuesAreRefusedNamingTheOption() {
        XCTAssertEqual(refusal("referer="), "malformed option referer: empty (expected a URL, or * for each request's own URL)")
        XCTAssertEqual(refusal("referer=file:///etc/passwd"),
                       "malformed option referer=file:///etc/passwd: unsupported scheme \"file\" (use http, https, ftp or ftps)")
        XCTAssertEqual(refusal("referer=not a url"),
                       "malformed option referer=not a url: no scheme (expected a URL like https://host/path)")
        XCTAssertEqual(refusal("user-agent="), "malformed option user-agent: empty")
        XCTAssertEqual(refusal("http-user="), "malformed option http-user: empty user name")
        XCTAssertEqual(refusal("http-user=a:b"),
                       "malformed option http-user: a user name cannot hold \":\" (basic auth puts one between user and password)")
        XCTAssertEqual(refusal("all-proxy=ftp://p:21"),
                       "malformed option all-proxy=ftp://p:21: unsupported proxy scheme \"ftp\" (use http, https, socks4, socks4a, socks5, socks5h)")
        XCTAssertEqual(refusal("all-proxy=http://p:99999"),
                       "malformed option all-proxy=http://p:99999: invalid port \"99999\" (must be a number from 1 to 65535)")
        XCTAssertEqual(refusal("all-proxy=http://p:1/path"),
                       "malformed option all-proxy=http://p:1/path: a proxy URL has no path (expected [http://][user:password@]host[:port])")
        XCTAssertEqual(refusal("all-proxy=http://:1"), "malformed option all-proxy=http://:1: no host")
    }

    /// R6: a refusal never repeats a password: neither `http-passwd`'s
    /// (always accepted) nor one in a proxy URL.
    func test_R11_R6_aRefusedProxyURLHidesItsPassword() throws {
        let reason = try XCTUnwrap(refusal("all-proxy=gopher://user:hunter2@p:70"))
        XCTAssertFalse(reason.contains("hunter2"), reason)
        XCTAssertTrue(reason.contains("gopher://user:***@p:70"), reason)
    }

    func test_R11_aMissingUnreadableOrForeignCookieFileIsRefused() {
        XCTAssertEqual(refusal("load-cookies=/c/missing.txt"), "load-cookies=/c/missing.txt: No such file or directory")
        XCTAssertEqual(refusal("load-cookies=cookies.txt"),
                       "load-cookies=cookies.txt: not an absolute path (the mount does not know the writer's directory)")
        XCTAssertEqual(refusal("load-cookies="), "load-cookies=: no file named")
        XCTAssertEqual(refusal("load-cookies=/c/junk.txt"),
                       "load-cookies=/c/junk.txt: not a Netscape cookies.txt: no line holds a cookie "
                       + "(line 1: expected 7 TAB-separated fields, found 1)")
    }

    /// A parser without files (the default) refuses the option rather than ignore it.
    func test_R11_aParserThatReadsNoFilesRefusesLoadCookies() {
        var parser = InputParser()
        XCTAssertThrowsError(try parser.feed(Array("http://h/a\n load-cookies=/c/cookies.txt\n".utf8)))
    }

    /// R11: the refused option line refuses its URL and the whole write; the parser is as before.
    func test_R11_aRefusedCookieFileRefusesTheWholeWrite() throws {
        var parser = InputParser(context: Self.context)
        _ = try parser.feed(Array("http://h/first\n".utf8))
        XCTAssertThrowsError(try parser.feed(Array("http://h/b\n load-cookies=/c/missing.txt\n".utf8)))
        XCTAssertEqual(try parser.finish().map(\.url), ["http://h/first"])
    }

    // MARK: stored (R50)

    func test_R50_optionsStoredBeforeTheseOptionsStillDecode() throws {
        let old = try JSONDecoder().decode(TaskOptions.self, from: Data(#"{"headers":["A: b"],"split":2}"#.utf8))
        XCTAssertEqual(old, TaskOptions(headers: ["A: b"], split: 2))
        XCTAssertNil(old.cookies)
        let full = TaskOptions(referer: "*", userAgent: "ua", httpUser: "u", httpPassword: "p", proxy: "",
                               cookies: [Cookie(domain: "h", includeSubdomains: true, name: "n", value: "v")])
        XCTAssertEqual(try JSONDecoder().decode(TaskOptions.self, from: try JSONEncoder().encode(full)), full)
        let plain = String(decoding: try JSONEncoder().encode(TaskOptions()), as: UTF8.self)
        for key in ["referer", "userAgent", "httpUser", "httpPassword", "proxy", "cookies"] {
            XCTAssertFalse(plain.contains(key), plain)
        }
    }

    /// A value each option takes; every listed key needs one here.
    private static let goodValues = [
        "out": "name.iso", "dir": "isos/ubuntu", "header": "X-Token: 1", "checksum": "md5=" + String(repeating: "0", count: 32),
        "max-download-limit": "2M", "split": "4", "referer": "http://h/", "user-agent": "agent/1",
        "http-user": "user", "http-passwd": "secret", "all-proxy": "http://proxy:3128",
        "load-cookies": "/c/cookies.txt",
    ]

    /// `InputOptionLine.knownKeys` is what the man page lists (R10): each
    /// key takes its good value, and the refusal of an unknown key names
    /// exactly these.
    func test_R10_theListedKeysAreTheOnesTheParserTakes() {
        for key in InputOptionLine.knownKeys {
            guard let value = Self.goodValues[key] else { XCTFail("no good value for \(key)"); continue }
            var options = TaskOptions()
            XCTAssertNil(InputOptionLine.apply("\(key)=\(value)", to: &options, urls: ["http://h/a"],
                                               context: Self.context), key)
            XCTAssertNotEqual(options, TaskOptions(), key)
        }
        var options = TaskOptions()
        let refusal = InputOptionLine.apply("no-such-option=1", to: &options)
        XCTAssertEqual(refusal, "unknown option \"no-such-option\" (known: \(InputOptionLine.knownKeys.joined(separator: ", ")))")
        XCTAssertEqual(Set(InputOptionLine.knownKeys).count, InputOptionLine.knownKeys.count)
    }
}
