import Foundation
import GRDB
import XCTest
@testable import Catalog
import DownloadFSCore

/// Logs are trimmed as they grow, in the commit that grows them (R53: a task
/// that keeps failing cannot grow the catalog without bound).
final class CatalogLogTrimTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("catalog.sqlite") }
    private let at = Date(timeIntervalSince1970: 1_800_000_500)

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDownWithError() throws { try directory.remove() }

    /// Writes `total` numbered lines to one log in batches of varied sizes,
    /// checking after every commit that the log holds at most `bound` lines.
    private func write(_ total: Int, to taskID: Int64?, _ catalog: Catalog, bound: Int) throws {
        let reader = try DatabaseQueue(path: path)
        defer { try? reader.close() }
        let sizes = [1, 7, 1, 50, 3, 499, 2, 120]
        var written = 0
        var round = 0
        while written < total {
            let size = min(sizes[round % sizes.count], total - written)
            round += 1
            var batch = CatalogBatch()
            batch.events = (written..<written + size).map { EventRecord(taskID: taskID, at: at, message: "line \($0)") }
            try catalog.commit(batch)
            written += size
            let held = try reader.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE taskID IS ?", arguments: [taskID]) ?? 0
            }
            guard held <= bound else {
                XCTFail("after \(written) lines the log holds \(held), more than \(bound)")
                return
            }
        }
    }

    private func allLines(_ taskID: Int64?, _ catalog: Catalog) throws -> [String] {
        try catalog.events(taskID: taskID, limit: 1_000_000).map(\.message)
    }

    func test_R53_aTaskLogIsTrimmedAsItGrowsKeepingTheNewestLines() throws {
        let catalog = try Catalog(path: path)
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(1), TestTask.make(2)]
        batch.events = [EventRecord(taskID: 2, at: at, message: "the other task's line")]
        try catalog.commit(batch)

        let total = Catalog.taskLogLines + 3 * Catalog.trimEvery + 123
        try write(total, to: 1, catalog, bound: Catalog.taskLogLines + Catalog.trimEvery)

        let kept = try allLines(1, catalog)
        XCTAssertLessThan(kept.count, total, "trimmed at all")
        XCTAssertGreaterThanOrEqual(kept.count, Catalog.taskLogLines, "no more than the excess is dropped")
        XCTAssertEqual(kept, (total - kept.count..<total).map { "line \($0)" }, "the newest lines, in order")
        XCTAssertEqual(try allLines(2, catalog), ["the other task's line"], "another task's log is untouched")
    }

    func test_R53_theDaemonLogIsTrimmedAsItGrowsKeepingTheNewestLines() throws {
        let catalog = try Catalog(path: path)
        let total = Catalog.daemonLogLines + Catalog.trimEvery + 321
        try write(total, to: nil, catalog, bound: Catalog.daemonLogLines + Catalog.trimEvery)

        let kept = try allLines(nil, catalog)
        XCTAssertLessThan(kept.count, total, "trimmed at all")
        XCTAssertGreaterThanOrEqual(kept.count, Catalog.daemonLogLines, "no more than the excess is dropped")
        XCTAssertEqual(kept, (total - kept.count..<total).map { "line \($0)" }, "the newest lines, in order")
    }
}
