import RPCCore
import XCTest

/// Notifications from `MOUNT/events` lines (R24, R73).
final class Aria2NotificationTests: XCTestCase {
    private var feed = Aria2NotificationFeed()

    private func notification(_ line: String) -> String? {
        feed.notice(forEventLine: line).map { String(decoding: $0, as: UTF8.self) }
    }

    private func method(_ line: String) -> String? {
        notification(line).flatMap { $0.split(separator: "\"").dropFirst(7).first.map(String.init) }
    }

    func test_eachEventThatAria2KnowsBecomesItsNotification() {
        let expected = ["downloading": "aria2.onDownloadStart", "paused": "aria2.onDownloadPause",
                        "removed": "aria2.onDownloadStop", "completed": "aria2.onDownloadComplete",
                        "failed": "aria2.onDownloadError"]
        for (event, method) in expected {
            XCTAssertEqual(notification("1795691116.052 10 \(event) my file.iso"),
                           #"{"jsonrpc":"2.0","method":"\#(method)","params":[{"gid":"000000000000000a"}]}"#, event)
        }
    }

    func test_otherEventsHaveNone() {
        for event in ["added", "queued", "retrying", "verifying", "renamed", "forgotten"] {
            XCTAssertNil(notification("1795691116.052 3 \(event) a.iso"), event)
        }
        XCTAssertNil(notification("1795691116.052 - lost 12"))
        XCTAssertNil(notification(""))
        XCTAssertNil(notification("garbage"))
    }

    func test_aTrailingNewlineAndANamelessLineAreFine() {
        XCTAssertNotNil(notification("1795691116.052 3 completed a.iso\n"))
        XCTAssertNotNil(notification("1795691116.052 3 completed\n"))
    }

    /// aria2c: one start, then after the last try one error; the task is `active` throughout (R72).
    func test_aStartAfterARetryIsNoNewStart() {
        XCTAssertEqual(method("1 4 downloading a.iso"), "aria2.onDownloadStart")
        for _ in 0..<3 {
            XCTAssertNil(notification("2 4 retrying a.iso"))
            XCTAssertNil(notification("3 4 queued a.iso"))
            XCTAssertNil(notification("4 4 downloading a.iso"), "the same download, still active")
        }
        XCTAssertNil(notification("5 4 retrying a.iso"))
        XCTAssertEqual(method("6 4 failed a.iso"), "aria2.onDownloadError")
        XCTAssertEqual(method("7 4 queued a.iso"), nil, "resumed by the user")
        XCTAssertEqual(method("8 4 downloading a.iso"), "aria2.onDownloadStart", "a new start after the failure")
    }

    func test_aPauseOrALostLineBetweenEndsTheRetry() {
        XCTAssertNil(notification("1 5 retrying b.iso"))
        XCTAssertEqual(method("2 5 paused b.iso"), "aria2.onDownloadPause")
        XCTAssertEqual(method("3 5 downloading b.iso"), "aria2.onDownloadStart", "resumed: a start as aria2c sends one")
        XCTAssertNil(notification("4 5 retrying b.iso"))
        XCTAssertNil(notification("5 - lost 3"))
        XCTAssertEqual(method("6 5 downloading b.iso"), "aria2.onDownloadStart", "what happened between is unknown")
        XCTAssertNil(notification("7 6 retrying c.iso"))
        XCTAssertEqual(method("8 7 downloading d.iso"), "aria2.onDownloadStart", "another task's start is its own")
    }
}
