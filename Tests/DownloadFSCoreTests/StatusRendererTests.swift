import XCTest
@testable import DownloadFSCore

/// R20: `queue/<id>/status`.
final class StatusRendererTests: XCTestCase {
    private let added = TestDates.utc("2026-11-21T05:30:12Z")
    private let now = TestDates.utc("2026-11-21T05:32:00Z")

    private var example: TaskStatusView {
        TaskStatusView(id: 3, name: "ubuntu-24.04.iso", url: "https://releases.example.com/ubuntu-24.04.iso",
                       state: .downloading, downloaded: 1_320_702_443, total: 3_137_184_768,
                       bytesPerSecond: 11.8 * 1_048_576, connections: 4, attempts: 1, error: nil, retryAt: nil,
                       added: added, completed: nil)
    }

    private func values(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            out[String(parts[0])] = String(parts[1].dropFirst())
        }
        return out
    }

    func test_R20_exampleFromTheSpec() {
        XCTAssertEqual(StatusRenderer.render(example, now: now), """
        id: 3
        name: ubuntu-24.04.iso
        dir: -
        url: https://releases.example.com/ubuntu-24.04.iso
        state: downloading
        progress: 42.1%
        downloaded: 1320702443
        total: 3137184768
        speed: 11.8 MiB/s
        connections: 4
        eta: 2m27s
        attempts: 1
        error: -
        added: 2026-11-21T05:30:12Z
        completed: -

        """)
    }

    func test_R35_dirShowsTheFolderUnderFiles() {
        var inFolder = example
        inFolder.folder = "isos/ubuntu"
        XCTAssertEqual(values(StatusRenderer.render(inFolder, now: now))["dir"], "isos/ubuntu")
        XCTAssertEqual(values(StatusRenderer.render(inFolder, now: now))["name"], "ubuntu-24.04.iso")
        inFolder.folder = ""
        XCTAssertEqual(values(StatusRenderer.render(inFolder, now: now))["dir"], "-", "at the top of files/")
    }

    func test_R20_keysAlwaysPresentInOrder() {
        let bare = TaskStatusView(id: 9, url: "http://h/", state: .queued, added: added)
        let keys = StatusRenderer.render(bare, now: now).split(separator: "\n").map { String($0.split(separator: ":")[0]) }
        XCTAssertEqual(keys, ["id", "name", "dir", "url", "state", "progress", "downloaded", "total",
                              "speed", "connections", "eta", "attempts", "error", "added", "completed"])
        XCTAssertEqual(keys, StatusRenderer.keys)
    }

    func test_R20_notApplicableIsDash() {
        let bare = TaskStatusView(id: 9, url: "http://h/", state: .queued, added: added)
        let v = values(StatusRenderer.render(bare, now: now))
        XCTAssertEqual(v["name"], "-")
        XCTAssertEqual(v["progress"], "-")
        XCTAssertEqual(v["total"], "unknown")
        XCTAssertEqual(v["speed"], "0 B/s")
        XCTAssertEqual(v["eta"], "-")
        XCTAssertEqual(v["error"], "-")
        XCTAssertEqual(v["completed"], "-")
        XCTAssertEqual(v["attempts"], "0")
        XCTAssertEqual(v["downloaded"], "0")
    }

    func test_R20_unknownTotalWhileDownloading() {
        var task = example
        task.total = nil
        let v = values(StatusRenderer.render(task, now: now))
        XCTAssertEqual(v["total"], "unknown")
        XCTAssertEqual(v["progress"], "-")
        XCTAssertEqual(v["eta"], "-")
        XCTAssertEqual(v["speed"], "11.8 MiB/s")
    }

    func test_R20_notMovingIsZeroSpeedAndNoETA() {
        var task = example
        task.bytesPerSecond = 0
        let v = values(StatusRenderer.render(task, now: now))
        XCTAssertEqual(v["speed"], "0 B/s")
        XCTAssertEqual(v["eta"], "-")
    }

    func test_R20_speedAndETAOnlyWhileDownloading() {
        for state in TaskState.allCases where state != .downloading {
            var task = example
            task.state = state
            let v = values(StatusRenderer.render(task, now: now))
            XCTAssertEqual(v["speed"], "0 B/s", "\(state)")
            XCTAssertEqual(v["eta"], "-", "\(state)")
        }
    }

    func test_R20_completedTask() {
        let done = TaskStatusView(id: 4, name: "a.bin", url: "http://h/a.bin", state: .completed,
                                  downloaded: 2048, total: 2048, bytesPerSecond: 0, attempts: 2,
                                  added: added, completed: TestDates.utc("2026-11-21T06:00:01Z"))
        let v = values(StatusRenderer.render(done, now: now))
        XCTAssertEqual(v["progress"], "100.0%")
        XCTAssertEqual(v["eta"], "-")
        XCTAssertEqual(v["completed"], "2026-11-21T06:00:01Z")
        XCTAssertEqual(v["state"], "completed")
    }

    func test_R20_failedTaskShowsTheSentence() {
        let failed = TaskStatusView(id: 5, url: "http://h/x", state: .failed, attempts: 1,
                                    error: TransferFailure.http(status: 404, retryAfter: nil).message, added: added)
        XCTAssertEqual(values(StatusRenderer.render(failed, now: now))["error"], "HTTP 404 Not Found")
        let disk = TaskStatusView(id: 6, url: "http://h/x", state: .failed,
                                  error: TransferFailure.writeError(errno: 28, message: "No space left on device").message,
                                  added: added)
        XCTAssertEqual(values(StatusRenderer.render(disk, now: now))["error"], "No space left on device")
    }

    func test_R20_retryingShowsNextRetryAndWait() {
        let retrying = TaskStatusView(id: 7, url: "http://h/x", state: .retrying, attempts: 2,
                                      error: "connection reset", retryAt: now.addingTimeInterval(7.2), added: added)
        XCTAssertEqual(values(StatusRenderer.render(retrying, now: now))["error"], "connection reset; retry 3 in 8s")
        let overdue = TaskStatusView(id: 7, url: "http://h/x", state: .retrying, attempts: 2,
                                     error: "connection reset", retryAt: now.addingTimeInterval(-1), added: added)
        XCTAssertEqual(values(StatusRenderer.render(overdue, now: now))["error"], "connection reset; retry 3 in 0s")
    }

    func test_R20_valuesNeverBreakTheLineFormat() {
        let odd = TaskStatusView(id: 8, url: "http://h/x", state: .failed, error: "two\nlines", added: added)
        let text = StatusRenderer.render(odd, now: now)
        XCTAssertEqual(text.split(separator: "\n").count, StatusRenderer.keys.count)
        XCTAssertEqual(values(text)["error"], "two lines")
    }
}
