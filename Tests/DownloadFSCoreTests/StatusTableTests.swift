import XCTest
@testable import DownloadFSCore

/// R21: the root `status` table.
final class StatusTableTests: XCTestCase {
    private let added = TestDates.utc("2026-11-21T05:30:12Z")
    private let now = TestDates.utc("2026-11-21T05:32:00Z")
    private let gib: Int64 = 1 << 30

    private var threeTasks: [TaskStatusView] {
        [
            TaskStatusView(id: 1, name: "small.bin", url: "http://h/small.bin", state: .completed,
                           downloaded: 100 << 20, total: 100 << 20, added: added, completed: now),
            TaskStatusView(id: 2, name: "big file.iso", url: "http://h/big", state: .downloading,
                           downloaded: 1_187_055_821, total: 2 * gib, bytesPerSecond: 11.8 * 1_048_576,
                           attempts: 1, added: added),
            TaskStatusView(id: 13, name: nil, url: "http://h/", state: .completed,
                           downloaded: 0, total: (gib * 9 / 10) - (100 << 20), added: added, completed: now),
        ]
    }

    func test_R21_headerRowsAndTotalsExactly() {
        XCTAssertEqual(StatusTable.render(threeTasks, now: now), """
        ID  STATE        PROGRESS  SPEED         ETA     NAME
        1   completed    100.0%    0 B/s         -       small.bin
        2   downloading  55.3%     11.8 MiB/s    1m18s   big file.iso
        13  completed    0.0%      0 B/s         -       -
        total: 3 tasks (1 downloading, 2 completed), 1.2 GiB of 2.9 GiB, 11.8 MiB/s

        """)
    }

    func test_R21_columnsAlignAndNameIsLast() {
        let lines = StatusTable.render(threeTasks, now: now).split(separator: "\n").dropLast().map(Array.init)
        let header = lines[0]
        for title in ["STATE", "PROGRESS", "SPEED", "ETA", "NAME"] {
            let column = String(header).range(of: title)!.lowerBound.utf16Offset(in: String(header))
            for row in lines {
                XCTAssertEqual(row[column - 1], " ", "\(title) in \(String(row))")
                XCTAssertNotEqual(row[column], " ", "\(title) in \(String(row))")
            }
        }
        let nameColumn = String(header).range(of: "NAME")!.lowerBound.utf16Offset(in: String(header))
        XCTAssertEqual(lines.dropFirst().map { String($0[nameColumn...]) }, ["small.bin", "big file.iso", "-"])
    }

    func test_R21_theWidestUsualValuesStillLineUp() {
        let tasks = [
            TaskStatusView(id: 123_456, name: "n", url: "http://h/", state: .downloading, downloaded: 1, total: 1 << 38,
                           bytesPerSecond: 1023.9 * 1024, added: added),
            TaskStatusView(id: 1, name: "m", url: "http://h/", state: .queued, added: added),
        ]
        let lines = StatusTable.render(tasks, now: now).split(separator: "\n")
        let nameOffsets = lines.dropLast().map { line in line.distance(from: line.startIndex, to: line.lastIndex(of: " ")!) }
        XCTAssertEqual(Set(nameOffsets).count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[1].hasPrefix("123456  downloading  0.0%      1023.9 KiB/s  "))
    }

    func test_R21_emptyTable() {
        XCTAssertEqual(StatusTable.render([], now: now), """
        ID  STATE        PROGRESS  SPEED         ETA     NAME
        total: 0 tasks, 0 B of 0 B, 0 B/s

        """)
    }

    func test_R21_totalsCountStatesInLifecycleOrder() {
        let tasks = [TaskState.failed, .queued, .paused, .queued, .retrying, .verifying].enumerated().map { i, state in
            TaskStatusView(id: Int64(i + 1), url: "http://h/", state: state, total: 0, added: added)
        }
        XCTAssertEqual(StatusTable.totals(tasks),
                       "total: 6 tasks (2 queued, 1 paused, 1 retrying, 1 verifying, 1 failed), 0 B of 0 B, 0 B/s")
    }

    func test_R21_singleTaskIsSingular() {
        let one = [TaskStatusView(id: 1, url: "http://h/", state: .queued, total: 4096, added: added)]
        XCTAssertEqual(StatusTable.totals(one), "total: 1 task (1 queued), 0 B of 4.0 KiB, 0 B/s")
    }

    func test_R21_unknownTotalsCountAsDoneOnlyAndSpeedIsSummedOverDownloads() {
        let tasks = [
            TaskStatusView(id: 1, url: "http://h/", state: .downloading, downloaded: 1024, total: nil,
                           bytesPerSecond: 1024, added: added),
            TaskStatusView(id: 2, url: "http://h/", state: .downloading, downloaded: 1024, total: 4096,
                           bytesPerSecond: 1024, added: added),
            TaskStatusView(id: 3, url: "http://h/", state: .paused, downloaded: 0, total: 4096,
                           bytesPerSecond: 5000, added: added),
        ]
        XCTAssertEqual(StatusTable.totals(tasks),
                       "total: 3 tasks (2 downloading, 1 paused), 2.0 KiB of 8.0 KiB known, 1 task of unknown size, 2.0 KiB/s")
    }

    /// The defect: "1.4 MiB of 0 B", with nothing saying why.
    func test_R21_totalsSayHowManyTasksHaveAnUnknownSize() {
        let chunked = TaskStatusView(id: 1, url: "http://h/", state: .downloading, downloaded: 1_468_006,
                                     total: nil, bytesPerSecond: 512 * 1024, added: added)
        XCTAssertEqual(StatusTable.totals([chunked]),
                       "total: 1 task (1 downloading), 1.4 MiB of 0 B known, 1 task of unknown size, 512.0 KiB/s")
        let notAskedYet = TaskStatusView(id: 2, url: "http://h/", state: .queued, added: added)
        XCTAssertEqual(StatusTable.totals([chunked, notAskedYet]),
                       "total: 2 tasks (1 queued, 1 downloading), 1.4 MiB of 0 B known, 2 tasks of unknown size, 512.0 KiB/s")
        let known = TaskStatusView(id: 3, url: "http://h/", state: .completed, downloaded: 1 << 20, total: 1 << 20, added: added)
        XCTAssertEqual(StatusTable.totals([known]), "total: 1 task (1 completed), 1.0 MiB of 1.0 MiB, 0 B/s",
                       "no mention of unknown sizes when there are none")
    }
}
