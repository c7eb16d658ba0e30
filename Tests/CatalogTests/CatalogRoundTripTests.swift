import Foundation
import GRDB
import XCTest
@testable import Catalog
import DownloadFSCore

/// A task comes back from the catalog as it went in (R50: a remount carries
/// every task on), and only its stored fields are stored.
final class CatalogRoundTripTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("catalog.sqlite") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDownWithError() throws { try directory.remove() }

    /// A task with every field set, in memory too; dates on whole milliseconds (what the catalog keeps).
    private func everyFieldSet() -> DownloadTask {
        let options = TaskOptions(
            out: "Ünïcode out \"name\".iso",
            headers: ["Authorization: Bearer a\"b\\c", "X-Ünicode: é ✓", "Cookie: a=b; c=d", "X-Empty:"],
            checksum: Checksum(algorithm: .sha256, hex: String(repeating: "0123456789abcdef", count: 4)),
            maxDownloadLimit: 1_048_576, split: 12,
            mirrors: ["https://mirror.example.org/ü.iso", "ftp://user:pw@ftp.example.org/pub/ü.iso"],
            referer: "https://example.org/ü?a=b", userAgent: "Mozilla/5.0 (X11; \"ü\")", httpUser: "ünï",
            httpPassword: "p\"w\\ ✓", proxy: "socks5h://u:p@proxy.example:1080",
            cookies: [Cookie(domain: "example.org", includeSubdomains: true, path: "/ü", secure: true,
                             expires: 4_000_000_000, name: "sid", value: "a=b; \"c\"", httpOnly: true)])
        var task = DownloadTask(url: "https://user:secret@Example.org:443/a%20b/ü.iso?x=1&y=2#frag",
                                normalizedURL: "https://user:secret@example.org/a%20b/ü.iso?x=1&y=2",
                                options: options, name: "Ünïcode out \"name\".iso",
                                addedAt: Date(timeIntervalSince1970: 1_800_000_000.25), position: .min)
        task.id = 42
        task.state = .retrying
        // Several ranges, as parallel segments and a crash leave them (R18).
        task.ranges = ByteRanges([0..<(1 << 40 + 3), (1 << 40 + 4 << 20)..<(1 << 40 + 9 << 20), (1 << 41 - 1)..<(1 << 41)])
        task.total = 1 << 41
        task.attempts = 7
        task.failuresWithoutData = 2
        task.error = "HTTP 503 Service Unavailable; retrying in 4 s"
        task.completedAt = Date(timeIntervalSince1970: 1_800_000_100.5)
        task.etag = "W/\"abc\""
        task.lastModified = "Wed, 21 Oct 2015 07:28:00 GMT"
        task.contentType = "application/x-iso9660-image"
        task.finalURL = "https://mirror.example.org/ü.iso"
        task.speedLimit = 524_288
        // Not the options' 12: `ctl split N` changed it after the add (R18, R30).
        task.split = 5
        task.retryAt = Date(timeIntervalSince1970: 1_800_000_200.75)
        task.droppedMirrors = ["ftp://user:pw@ftp.example.org/pub/ü.iso", "https://user:secret@Example.org:443/a%20b/ü.iso?x=1&y=2#frag"]
        task.serial = 9
        task.phase = .stopping(.pause)
        task.startedAt = 123.5
        return task
    }

    private func columns() throws -> Set<String> {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in Set(try db.columns(in: "task").map(\.name)) }
    }

    /// The mount's load reads on a second thread: every task comes, once,
    /// in id order, across several hand-overs; a body that throws stops it
    /// with the error, and the reader is gone when `forEachTask` returns.
    func test_R50_everyTaskIsLoadedOnceInIdOrderAcrossHandOvers() throws {
        let catalog = try Catalog(path: path)
        var batch = CatalogBatch()
        let count = Catalog.loadBatch * 3 + 7
        batch.inserts = (1...Int64(count)).reversed().map { TestTask.make($0) }
        try catalog.commit(batch)
        var seen: [Int64] = []
        try catalog.forEachTask { seen.append($0.taskID) }
        XCTAssertEqual(seen, Array(1...Int64(count)))
        struct Stop: Error {}
        var taken = 0
        XCTAssertThrowsError(try catalog.forEachTask { _ in
            taken += 1
            if taken == Catalog.loadBatch + 1 { throw Stop() }
        }) { XCTAssertTrue("\($0)".contains("load tasks"), "\($0)") }
        XCTAssertEqual(taken, Catalog.loadBatch + 1, "nothing after the throw")
        var again = 0
        try catalog.forEachTask { _ in again += 1 }
        XCTAssertEqual(again, count, "the catalog still reads after a stopped load")
    }

    func test_R50_aTaskWithEveryFieldSetSurvivesCommitAndLoad() throws {
        let task = everyFieldSet()
        var batch = CatalogBatch()
        batch.inserts = [task]
        try Catalog(path: path).commit(batch)

        let loaded = try Catalog(path: path).loadTasks()
        XCTAssertEqual(loaded.count, 1)
        let back = try XCTUnwrap(loaded.first)
        XCTAssertFalse(back.differsInCatalog(from: task), "\(back)\n!=\n\(task)")
        XCTAssertEqual(back.options, task.options)
        XCTAssertEqual(back.addedAt, task.addedAt)
        XCTAssertEqual(back.retryAt, task.retryAt)
        XCTAssertEqual(back.position, .min)
    }

    func test_theInMemoryFieldsAreNotStored() throws {
        var batch = CatalogBatch()
        batch.inserts = [everyFieldSet()]
        try Catalog(path: path).commit(batch)

        let back = try XCTUnwrap(try Catalog(path: path).loadTasks().first)
        XCTAssertEqual(back.serial, 0)
        XCTAssertFalse(back.transferring)
        XCTAssertNil(back.stopping)
        XCTAssertNil(back.startedAt)
        let stored: Set<String> = ["id", "url", "normalizedURL", "options", "name", "state", "downloaded", "total",
                                   "attempts", "failuresWithoutData", "error", "addedAt", "completedAt", "position",
                                   "etag", "lastModified", "contentType", "finalURL", "speedLimit", "retryAt", "ranges",
                                   "split", "droppedMirrors"]
        XCTAssertEqual(try columns(), stored)
    }

    func test_R50_anUpdatedTaskSurvivesCommitAndLoad() throws {
        let catalog = try Catalog(path: path)
        var full = everyFieldSet()
        var batch = CatalogBatch()
        // What never changes after an add (url, options, addedAt) is set at
        // insert; an update writes everything else.
        var inserted = TestTask.make(42)
        inserted.url = full.url
        inserted.normalizedURL = full.normalizedURL
        inserted.options = full.options
        inserted.addedAt = full.addedAt
        batch.inserts = [inserted]
        try catalog.commit(batch)

        batch = CatalogBatch()
        batch.updates = [full]
        try catalog.commit(batch)
        let back = try XCTUnwrap(try catalog.loadTasks().first)
        XCTAssertFalse(back.differsInCatalog(from: full), "\(back)\n!=\n\(full)")

        // Those columns are not rewritten by an update (a task with 200,000
        // headers would re-encode them at every checkpoint).
        full.url = "https://elsewhere.example/x"
        full.options = TaskOptions()
        batch.updates = [full]
        try catalog.commit(batch)
        let again = try XCTUnwrap(try catalog.loadTasks().first)
        XCTAssertEqual(again.url, inserted.url)
        XCTAssertEqual(again.options, inserted.options)
    }

    func test_R50_unsetOptionalsComeBackUnset() throws {
        var task = TestTask.make(1)
        task.options = TaskOptions(headers: [])
        var batch = CatalogBatch()
        batch.inserts = [task]
        try Catalog(path: path).commit(batch)
        let back = try XCTUnwrap(try Catalog(path: path).loadTasks().first)
        XCTAssertEqual(back, task)
        XCTAssertNil(back.total)
        XCTAssertNil(back.options.out)
        XCTAssertNil(back.options.checksum)
        XCTAssertNil(back.options.maxDownloadLimit)
        XCTAssertNil(back.options.split)
        XCTAssertNil(back.split, "no split of its own: the daemon's default")
        XCTAssertNil(back.options.mirrors)
        XCTAssertEqual(back.droppedMirrors, [])
        XCTAssertNil(back.options.referer)
        XCTAssertNil(back.options.userAgent)
        XCTAssertNil(back.options.httpUser)
        XCTAssertNil(back.options.httpPassword)
        XCTAssertNil(back.options.proxy)
        XCTAssertNil(back.options.cookies)
    }

    /// R19: a task's mirrors are stored with its options, as added (and
    /// options without them are stored without the key, as before); the URLs
    /// dropped since are an update like any other and survive a remount.
    func test_R19_mirrorsAndDroppedMirrorsSurviveInsertUpdateAndLoad() throws {
        let catalog = try Catalog(path: path)
        var task = TestTask.make(1)
        task.options = TaskOptions(mirrors: ["https://m1.example/file-1.iso", "https://m2.example/file-1.iso"])
        var batch = CatalogBatch()
        batch.inserts = [task, TestTask.make(2)]
        try catalog.commit(batch)
        let options = try withDatabase { try String.fetchAll($0, sql: "SELECT options FROM task ORDER BY id") }
        XCTAssertTrue(options[0].contains("m2.example"), options[0])
        XCTAssertFalse(options[1].contains("mirrors"), "no key for a task with one URL: \(options[1])")
        XCTAssertEqual(try Catalog(path: path).loadTasks().first, task)

        task.droppedMirrors = ["https://m2.example/file-1.iso"]
        batch = CatalogBatch()
        batch.updates = [task]
        try catalog.commit(batch)
        XCTAssertEqual(try withDatabase { try String.fetchOne($0, sql: "SELECT droppedMirrors FROM task WHERE id = 1") },
                       "https://m2.example/file-1.iso")
        task.droppedMirrors.append("https://example.org/file-1.iso")
        batch.updates = [task]
        try catalog.commit(batch)
        let back = try XCTUnwrap(try Catalog(path: path).loadTasks().first)
        XCTAssertEqual(back.droppedMirrors, ["https://m2.example/file-1.iso", "https://example.org/file-1.iso"])
        XCTAssertEqual(back.liveURLs, ["https://m1.example/file-1.iso"])
        XCTAssertEqual(back, task)
    }

    /// Runs `body` on a plain connection of our own, closed before returning.
    private func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    /// R18: a task's split is its `split=N` when added, and what `ctl split N`
    /// last set after that; both survive a remount.
    func test_R18_aTasksSplitSurvivesInsertUpdateAndLoad() throws {
        let catalog = try Catalog(path: path)
        var task = TestTask.make(1)
        task.options = TaskOptions(split: 8)
        task.split = task.options.split
        var batch = CatalogBatch()
        batch.inserts = [task]
        try catalog.commit(batch)
        XCTAssertEqual(try Catalog(path: path).loadTasks().first?.split, 8)

        task.split = 2
        batch = CatalogBatch()
        batch.updates = [task]
        try catalog.commit(batch)
        let back = try XCTUnwrap(try Catalog(path: path).loadTasks().first)
        XCTAssertEqual(back.split, 2)
        XCTAssertEqual(back.options.split, 8, "the options stay as added")
        XCTAssertEqual(back, task)
    }

    func test_R15_everyStateSurvivesCommitAndLoad() throws {
        let catalog = try Catalog(path: path)
        var batch = CatalogBatch()
        batch.inserts = TaskState.allCases.enumerated().map { TestTask.make(Int64($0.offset + 1), state: $0.element) }
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.loadTasks().map(\.state), TaskState.allCases)
    }

    func test_datesKeepMillisecondPrecision() throws {
        var task = TestTask.make(1)
        task.addedAt = Date(timeIntervalSince1970: 1_800_000_000.123_456)
        var batch = CatalogBatch()
        batch.inserts = [task]
        try Catalog(path: path).commit(batch)
        let back = try XCTUnwrap(try Catalog(path: path).loadTasks().first)
        XCTAssertEqual(back.addedAt.timeIntervalSince1970, task.addedAt.timeIntervalSince1970, accuracy: 0.001)
    }

    /// A ranges column that does not parse (edited by hand, damaged) is
    /// trusted for no more than the row's count, from zero; the mount then
    /// checks that against the partial file (R51).
    func test_R51_unreadableRangesFallBackToTheCountFromZero() throws {
        var task = everyFieldSet()
        task.ranges = ByteRanges([0..<4096, 8192..<12288])
        var batch = CatalogBatch()
        batch.inserts = [task]
        try Catalog(path: path).commit(batch)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "UPDATE task SET ranges = 'garbage', downloaded = 6000") }
        try queue.close()
        XCTAssertEqual(try Catalog(path: path).loadTasks().first?.ranges, ByteRanges([0..<6000]))
    }
}
