import XCTest
@testable import DownloadFS

/// The daemon's lines on stderr (STATE/daemon.log): one commit's lines come
/// as one message and are written as a line each, each with its prefix.
final class DaemonLogHandlerTests: XCTestCase {
    func test_eachLineOfAMessageHasItsOwnPrefix() {
        XCTAssertEqual(DaemonLogHandler.text(of: "task 1 completed: a\ntask 2 completed: b", prefix: "T info "),
                       "T info task 1 completed: a\nT info task 2 completed: b\n")
    }

    func test_aOneLineMessageIsOneLine() {
        XCTAssertEqual(DaemonLogHandler.text(of: "mounted at /m", prefix: "T info "), "T info mounted at /m\n")
    }

    func test_anEmptyLineIsKept() {
        XCTAssertEqual(DaemonLogHandler.text(of: "a\n\nb", prefix: "P "), "P a\nP \nP b\n")
    }
}
