import RPCCore
import XCTest

/// Notifications from `MOUNT/events` lines (R24, R73).
final class Aria2NotificationTests: RPCTestCase {
    private func notification(_ line: String) -> String? {
        dispatcher.notification(forEventLine: line).map { String(decoding: $0, as: UTF8.self) }
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
}
