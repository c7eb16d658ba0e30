import XCTest
@testable import DownloadFSCore

/// R4: `downloadfs add URL...` writes each URL argument as one line of
/// `queue/new`; an argument that is not one URL line is refused before
/// anything is written.
final class URLArgumentTests: XCTestCase {
    func test_R4_aURLOrMirrorsAreOneLine() {
        XCTAssertNil(URLArgument.problem(with: "https://example.com/a.iso"))
        XCTAssertNil(URLArgument.problem(with: "http://h/a\thttp://m/a"), "mirrors of one file (R19)")
        XCTAssertNil(URLArgument.problem(with: "http://h/a#part"), "a # inside a URL is its fragment")
        XCTAssertNil(URLArgument.problem(with: "file:///etc/passwd"), "the scheme is the mount's to refuse (R11)")
    }

    func test_R4_anArgumentThatAddsNothingIsRefused() {
        XCTAssertEqual(URLArgument.problem(with: ""), "a URL argument is empty")
        XCTAssertEqual(URLArgument.problem(with: " "), "a URL argument is blank (\" \")")
        XCTAssertEqual(URLArgument.problem(with: "\t "), "a URL argument is blank (\"\t \")")
        for comment in ["#comment", "#", "  # http://h/a"] {
            XCTAssertEqual(URLArgument.problem(with: comment)?.contains("is a comment, not a URL"), true, comment)
        }
    }

    func test_R4_anArgumentCannotBringLinesOfItsOwn() {
        for text in ["http://h/a\n  out=zz.bin", "http://h/a\nhttp://h/b", "http://h/a\n", "\nhttp://h/a",
                     "http://h/a\r\n  out=x"] {
            XCTAssertEqual(URLArgument.problem(with: text)?.hasPrefix("a URL argument holds a line break"), true, text)
        }
        // A leading blank makes the line the option of the URL before it.
        XCTAssertEqual(URLArgument.problem(with: "  out=zz.bin")?.contains("option line"), true)
        XCTAssertEqual(URLArgument.problem(with: "\thttp://h/a")?.contains("option line"), true)
    }
}
