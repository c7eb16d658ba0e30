import Foundation
import XCTest
@testable import DownloadFSCore

/// What clients (the aria2 door, R72) read back from `MOUNT/status` (R21)
/// and `queue/<id>/status` (R20), checked against the renderers' own output.
final class StatusReadingTests: XCTestCase {
    private let added = Date(timeIntervalSince1970: 1_795_000_000)

    func test_R21_everyRowGivesItsIdAndState() {
        let tasks = [
            TaskStatusView(id: 1, name: "a b.iso", url: "http://h/a", state: .downloading, added: added),
            TaskStatusView(id: 12, name: "completed", url: "http://h/c", state: .paused, added: added),
        ]
        XCTAssertEqual(StatusReading.rows(inTable: StatusTable.render(tasks, now: added)),
                       [.init(id: 1, state: .downloading), .init(id: 12, state: .paused)])
    }

    func test_R21_theOverallSpeedEndsTheTotalsLine() {
        let tasks = [TaskStatusView(id: 1, url: "http://h/a", state: .downloading, bytesPerSecond: 11.8 * 1_048_576,
                                    added: added)]
        XCTAssertEqual(StatusReading.overallSpeed(inTable: StatusTable.render(tasks, now: added)), "11.8 MiB/s")
        XCTAssertEqual(StatusReading.overallSpeed(inTable: StatusTable.render([], now: added)), "0 B/s")
        XCTAssertNil(StatusReading.overallSpeed(inTable: ""))
    }

    func test_R20_everyValueIsReadAtOnce() {
        let task = TaskStatusView(id: 3, name: "x: y.iso", url: "http://h/x", state: .failed, downloaded: 5,
                                  error: "HTTP 404 Not Found", added: added)
        let values = StatusReading.values(inStatus: StatusRenderer.render(task, now: added))
        XCTAssertEqual(values["id"], "3")
        XCTAssertEqual(values["name"], "x: y.iso")
        XCTAssertEqual(values["state"], "failed")
        XCTAssertEqual(values["error"], "HTTP 404 Not Found")
        XCTAssertEqual(values["total"], "unknown")
        XCTAssertNil(values["dir"], "- is no value")
        XCTAssertEqual(Set(values.keys).subtracting(StatusRenderer.keys), [])
    }
}
