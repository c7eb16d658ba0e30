import Foundation
import XCTest
@testable import DownloadFSCore

/// `TaskSet`: the rules across tasks, request by request, with the engine's
/// and workers' reports played by hand.
final class TaskSetTests: XCTestCase {
    /// A task set with a clock and tokens, and what it decided.
    struct Harness {
        var set: TaskSet
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        var clock = 100.0
        var token: UInt64 = 0
        var filesOnDisk: Set<String> = []

        init(maxActive: Int = 2, globalLimit: Int64 = 0, onDisk: Set<String> = [], seed: UInt64 = 1) {
            let disk = onDisk
            set = TaskSet(machine: TaskMachine(retry: RetryPolicy(maxTries: 3)), maxActive: maxActive,
                          globalLimit: globalLimit, globalSplit: nil, seed: seed, isFileNameOnDisk: { disk.contains($0) })
        }

        /// One request, then the scheduling pass, as one loop turn does.
        @discardableResult
        mutating func run(_ request: TaskSetRequest) -> TaskSetTurn {
            var turn = TaskSetTurn()
            set.handle(request, now: now, monotonic: clock, into: &turn)
            set.handle(.schedule, now: now, monotonic: clock, into: &turn)
            clock += 0.001
            return turn
        }

        mutating func nextToken() -> UInt64 {
            token += 1
            return token
        }

        @discardableResult
        mutating func add(_ urls: [String], out: String? = nil) -> [Int64] {
            let entries = urls.enumerated().map { InputEntry(url: $1, options: TaskOptions(out: out), line: $0 + 1) }
            let turn = run(.add(entries, token: nextToken()))
            guard case .ids(let ids)? = turn.replies.first?.reply else { return [] }
            return ids
        }

        @discardableResult
        mutating func control(_ id: Int64, _ command: ControlCommand) -> TaskSetReply? {
            run(.control(id, command, token: nextToken())).replies.last?.reply
        }

        @discardableResult
        mutating func global(_ command: ControlCommand) -> TaskSetTurn {
            run(.controlGlobal(command, token: nextToken()))
        }

        func state(_ id: Int64) -> TaskState? { self.set.tasks[id]?.state }

        var all: [DownloadTask] {
            var out: [DownloadTask] = []
            self.set.tasks.forEach { out.append($0) }
            return out
        }

        var downloading: [Int64] { all.filter { $0.state == .downloading }.map(\.taskID) }

        /// Plays the engine and the worker until task `id` is completed.
        mutating func complete(_ id: Int64, bytes: Int64 = 10) {
            guard let serial = set.tasks[id]?.serial else { return }
            run(.report(id, .finished(serial: serial, outcome: .completed(bytes: bytes, total: bytes))))
            let name = set.tasks[id]!.name
            run(.report(id, .finalized(serial: serial, result: .moved(name: name, at: Date(timeIntervalSince1970: 1_800_000_000)))))
        }

        /// Plays the engine settling a stop of task `id`.
        mutating func stopped(_ id: Int64) -> TaskSetTurn {
            let serial = set.tasks[id]!.serial
            return run(.report(id, .finished(serial: serial, outcome: .stopped(ranges: ByteRanges()))))
        }
    }

    private func urls(_ n: Int) -> [String] { (1...n).map { "http://h/f\($0).bin" } }

    // MARK: adding and names (R13, R17)

    func test_R13_addingAKnownURLAnswersItsTask() {
        var h = Harness()
        XCTAssertEqual(h.add(["http://h/a.iso", "http://h/b.iso"]), [1, 2])
        XCTAssertEqual(h.add(["http://h/b.iso", "http://H/a.iso"]), [2, 1])
        XCTAssertEqual(h.set.tasks.count, 2)
    }

    /// Ids are never reused: a mount starts above the catalog's sequence.
    func test_idsStartAboveTheHighestEverGiven() {
        var h = Harness()
        h.set.giveIDs(after: 41)
        XCTAssertEqual(h.add(["http://h/a.iso"]), [42])
    }

    func test_R17_aRepeatedNameGetsTheNextFreeNumber() {
        var h = Harness(onDisk: ["a (2).iso"])
        let ids = h.add((1...5).map { "http://h\($0)/a.iso" })
        XCTAssertEqual(ids.map { h.set.tasks[$0]!.name }, ["a.iso", "a (1).iso", "a (3).iso", "a (4).iso", "a (5).iso"])
    }

    func test_R17_aNameFreedByRemovingItsTaskIsGivenAgain() {
        var h = Harness(maxActive: 0)
        let ids = h.add((1...4).map { "http://h\($0)/a.iso" })
        h.run(.remove(ids[1], token: h.nextToken()))
        XCTAssertEqual(h.add(["http://h9/a.iso"]).map { h.set.tasks[$0]!.name }, ["a (1).iso"])
        XCTAssertEqual(h.add(["http://h10/a.iso"]).map { h.set.tasks[$0]!.name }, ["a (4).iso"])
    }

    /// A thousand copies of each of ten names: each add probes a name or
    /// two, not every ` (n)` from 1 (the million-task list).
    func test_R17_repeatedNamesCostAProbeOrTwoEach() {
        final class Counter: @unchecked Sendable { var probes = 0 }
        let counter = Counter()
        var set = TaskSet(machine: TaskMachine(retry: RetryPolicy(maxTries: 3)), maxActive: 0, globalLimit: 0,
                          globalSplit: nil, seed: 1, isFileNameOnDisk: { _ in counter.probes += 1; return false })
        var turn = TaskSetTurn()
        let entries = (0..<10_000).map { InputEntry(url: "http://h/\($0)/image\($0 % 10).jpg", line: $0 + 1) }
        set.handle(.add(entries, token: 1), now: Date(), monotonic: 0, into: &turn)
        XCTAssertEqual(set.tasks.count, 10_000)
        XCTAssertLessThan(counter.probes, 30_000)
        XCTAssertTrue(set.tasks.isNameTaken("image3 (999).jpg"))
    }

    /// A few tasks get a daemon line each, a data set one line for all;
    /// no task log line is stored for the add (it follows from the row).
    func test_addedTasksAreLoggedEachOrAsOneLineForAWholeDataSet() {
        var h = Harness(maxActive: 0)
        var turn = TaskSetTurn()
        let few = (1...TaskSet.addedLinesEach).map { InputEntry(url: "http://u:pw@h/f\($0)", line: $0) }
        h.set.handle(.add(few, token: 1), now: h.now, monotonic: 0, into: &turn)
        XCTAssertEqual(turn.log.count, TaskSet.addedLinesEach)
        XCTAssertEqual(turn.log.first?.message, "task 1 added: http://u:***@h/f1")
        XCTAssertTrue(turn.log.allSatisfy { $0.taskID == nil }, "no task log line is stored")
        XCTAssertEqual(TaskLogLine.added(h.set.tasks[1]!),
                       TaskLogLine(taskID: 1, at: h.now, message: "added: http://u:***@h/f1"))
        XCTAssertTrue(TaskLogLine.showsAdded(storedCount: 0, firstStored: nil, kept: 2000))
        XCTAssertTrue(TaskLogLine.showsAdded(storedCount: 1999, firstStored: "mirrors: 1 other URL", kept: 2000))
        XCTAssertFalse(TaskLogLine.showsAdded(storedCount: 3, firstStored: "added: http://h/f1", kept: 2000),
                       "a catalog from before holds it stored")
        XCTAssertFalse(TaskLogLine.showsAdded(storedCount: 2000, firstStored: "x", kept: 2000), "cut with the oldest")
        turn = TaskSetTurn()
        let many = (1...(TaskSet.addedLinesEach + 1)).map { InputEntry(url: "http://h/g\($0)", line: $0) }
        h.set.handle(.add(many, token: 2), now: h.now, monotonic: 0, into: &turn)
        XCTAssertEqual(turn.log.map(\.message), ["101 tasks added by one write, 101 to 201: http://h/g1 … http://h/g101"])
        turn = TaskSetTurn()
        h.set.handle(.add(many, token: 3), now: h.now, monotonic: 0, into: &turn)
        XCTAssertEqual(turn.log, [], "nothing new, nothing said")
    }

    /// R10: the task log says how many cookies of a `load-cookies=` file the task kept, never which.
    func test_R10_theTaskLogSaysHowManyCookiesWereKept() {
        var h = Harness(maxActive: 0)
        var turn = TaskSetTurn()
        let cookie = Cookie(domain: "h", includeSubdomains: false, name: "sid", value: "secret-value")
        let entries = [InputEntry(url: "http://h/a", options: TaskOptions(cookies: [cookie, cookie]), line: 1),
                       InputEntry(url: "http://h/b", options: TaskOptions(cookies: []), line: 2),
                       InputEntry(url: "http://h/c", line: 3)]
        h.set.handle(.add(entries, token: 1), now: h.now, monotonic: 0, into: &turn)
        let taskLines = turn.log.filter { $0.taskID != nil }
        XCTAssertEqual(taskLines.map(\.taskID), [1, 2])
        XCTAssertEqual(taskLines.map(\.message), [TaskSet.cookiesLine(2), TaskSet.cookiesLine(0)])
        XCTAssertEqual(TaskSet.cookiesLine(2), "load-cookies: kept 2 cookies for this task's hosts, sent with the requests they match")
        XCTAssertFalse(turn.log.contains { $0.message.contains("secret-value") || $0.message.contains("sid") })
    }

    func test_R24_anAddedTaskSaysAddedThenQueued() {
        var h = Harness(maxActive: 0)
        var turn = TaskSetTurn()
        h.set.handle(.add([InputEntry(url: "http://h/a b.iso", line: 1)], token: 1), now: h.now, monotonic: 0, into: &turn)
        XCTAssertEqual(turn.changes.map(\.event), ["added", "queued"])
        XCTAssertEqual(turn.changes.map(\.name), ["a b.iso", "a b.iso"])
    }

    // MARK: scheduling (R16, R30, R31)

    func test_R16_atMostMaxActiveDownloadFirstInFirstOut() {
        var h = Harness(maxActive: 2)
        h.add(urls(5))
        XCTAssertEqual(h.downloading, [1, 2])
        h.complete(1)
        XCTAssertEqual(h.downloading, [2, 3])
        XCTAssertEqual(h.state(1), .completed)
    }

    func test_R16_aSlotALastByteFreesIsFilledBeforeTheCommit() {
        var h = Harness(maxActive: 2)
        h.add(urls(3))
        let serial = h.set.tasks[1]!.serial
        var turn = h.run(.report(1, .syncing(serial: serial)))
        XCTAssertEqual(h.downloading, [2, 3])
        let early = turn.takeStartsBeforeCommit()
        XCTAssertEqual(early.map(\.id), [3])
        guard case .startTransfer? = early.first?.effect else { return XCTFail("no start: \(early)") }
        // Both changes are still to be committed (and shown once they are, R15).
        XCTAssertEqual(turn.updated, [1, 3])
        XCTAssertFalse(turn.effects.contains { if case .startTransfer = $0.effect { true } else { false } })
    }

    func test_R30_topPutsATaskAtTheHeadOfTheLine() {
        var h = Harness(maxActive: 1)
        h.add(urls(4))
        XCTAssertEqual(h.control(4, .top), .done)
        h.complete(1)
        XCTAssertEqual(h.downloading, [4])
    }

    func test_R30_topIsMoveZeroAndRefusesWhatMoveRefuses() {
        var h = Harness(maxActive: 1)
        h.add(urls(2))
        // Task 1 downloads, task 2 waits: neither `top` nor `move 0` moves
        // a task that has no place in the line.
        XCTAssertEqual(h.control(1, .top), h.control(1, .move(0)))
        guard case .refused(let why) = h.control(1, .top) else { return XCTFail("top of a downloading task taken") }
        XCTAssertTrue(why.contains("only a queued or paused one has a place in the line"), why)
        XCTAssertEqual(h.control(2, .top), .done)
    }

    func test_R30_moveNPlacesATaskAnywhereInTheLine() {
        var h = Harness(maxActive: 0)
        h.add(urls(6))
        XCTAssertEqual(h.control(6, .move(2)), .done)
        XCTAssertEqual(h.control(1, .move(100)), .done)
        XCTAssertEqual(h.control(5, .move(0)), .done)
        h.global(.maxActive(6))
        let order = h.all.sorted { ($0.position, $0.taskID) < ($1.position, $1.taskID) }.map(\.taskID)
        XCTAssertEqual(order, [5, 2, 6, 3, 4, 1])
    }

    /// R30: the line `move N` counts in is the one `user.downloadfs.line`
    /// lists, queued and paused tasks alike (after `pause-all`, the usual
    /// moment to reorder a queue, every task in it is paused).
    func test_R30_moveCountsPausedTasksInTheLine() {
        var h = Harness(maxActive: 0)
        h.add(urls(5))
        for id: Int64 in 1...5 { XCTAssertEqual(h.control(id, .pause), .done) }
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [1, 2, 3, 4, 5])
        XCTAssertEqual((1...5).map { h.set.tasks.snapshot.place(of: Int64($0)) }, [0, 1, 2, 3, 4])
        XCTAssertEqual(h.control(4, .move(0)), .done)
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [4, 1, 2, 3, 5])
        XCTAssertEqual(h.control(1, .move(2)), .done)
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [4, 2, 1, 3, 5])
        // A queued task among paused ones: counted in the same line.
        XCTAssertEqual(h.control(3, .resume), .done)
        XCTAssertEqual(h.control(3, .move(1)), .done)
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [4, 3, 2, 1, 5])
        XCTAssertEqual([4, 3, 2, 1, 5].map { h.set.tasks.snapshot.place(of: $0) }, [0, 1, 2, 3, 4])
        XCTAssertEqual(h.control(2, .move(3)), .done)
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [4, 3, 1, 2, 5])
        // Where neighbours leave no room, the ones before step back.
        for _ in 0..<3 {
            XCTAssertEqual(h.control(5, .move(2)), .done)
            XCTAssertEqual(h.control(5, .move(4)), .done)
        }
        XCTAssertEqual(h.control(5, .move(2)), .done)
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [4, 3, 5, 1, 2])
    }

    func test_R30_aTasksPlaceIsWhereMoveLeftIt() {
        var h = Harness(maxActive: 0)
        h.add(urls(6))
        XCTAssertEqual(h.control(6, .move(2)), .done)
        XCTAssertEqual(h.control(1, .move(100)), .done)
        XCTAssertEqual(h.control(4, .pause), .done)
        let snapshot = h.set.tasks.snapshot
        // The line: 2 6 3 4 5 1 (4 paused, its place kept between 3 and 5).
        XCTAssertEqual(snapshot.waitingLine(), [2, 6, 3, 4, 5, 1])
        XCTAssertEqual([2, 6, 3, 4, 5, 1].map { snapshot.place(of: $0) }, [0, 1, 2, 3, 4, 5])
        XCTAssertNil(snapshot.place(of: 99))
        // `move N` to a task's own place leaves the line as it was.
        for id: Int64 in [2, 6, 3, 4, 5, 1] {
            XCTAssertEqual(h.control(id, .move(h.set.tasks.snapshot.place(of: id)!)), .done)
        }
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [2, 6, 3, 4, 5, 1])
        XCTAssertEqual([2, 6, 3, 4, 5, 1].map { h.set.tasks.snapshot.place(of: $0) }, [0, 1, 2, 3, 4, 5])
        h.global(.maxActive(1))
        XCTAssertNil(h.set.tasks.snapshot.place(of: 2), "downloading: no place")
    }

    func test_R30_theWaitingLineListsQueuedAndPausedTasksInStartOrder() {
        var h = Harness(maxActive: 0)
        h.add(urls(6))
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(h.control(6, .move(2)), .done)
        XCTAssertEqual(h.control(1, .move(100)), .done)
        XCTAssertEqual(h.control(4, .pause), .done)
        // Each task's place is its index among the queued ones before it.
        let line = h.set.tasks.snapshot.waitingLine()
        XCTAssertEqual(line, [2, 6, 3, 4, 5, 1], "the paused task keeps its place in the line")
        h.global(.maxActive(2))
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [3, 4, 5, 1], "the two that started left the line")
    }

    func test_R30_moveRefusesATaskWithoutAPlaceInTheLine() {
        var h = Harness(maxActive: 1)
        h.add(urls(2))
        guard case .refused(let why)? = h.control(1, .move(1)) else { return XCTFail("move of a downloading task") }
        XCTAssertTrue(why.contains("downloading"), why)
        XCTAssertEqual(h.control(9, .move(1)), .refused("task 9 does not exist"))
    }

    func test_R30_startPreemptsTheEarliestStarted() {
        var h = Harness(maxActive: 2)
        h.add(urls(3))
        XCTAssertEqual(h.control(3, .start), .done)
        XCTAssertEqual(h.state(3), .downloading)
        XCTAssertEqual(h.state(1), .queued)
        XCTAssertEqual(h.state(2), .downloading)
    }

    func test_R30_pauseIsAnsweredOnceTheStopHasSettled() {
        var h = Harness(maxActive: 1)
        h.add(urls(1))
        let turn = h.run(.control(1, .pause, token: 77))
        XCTAssertTrue(turn.replies.isEmpty)
        XCTAssertEqual(h.set.heldTokens, [77])
        let settled = h.stopped(1)
        XCTAssertEqual(settled.replies.map(\.token), [77])
        XCTAssertEqual(h.state(1), .paused)
        XCTAssertEqual(settled.changes.map(\.event), ["paused"])
    }

    func test_R31_pauseAllAndResumeAll() {
        var h = Harness(maxActive: 1)
        h.add(urls(3))
        let turn = h.global(.pauseAll)
        XCTAssertEqual(Set([h.state(2), h.state(3)]), [.paused])
        XCTAssertTrue(turn.replies.isEmpty, "held until task 1 has stopped")
        XCTAssertEqual(h.stopped(1).replies.count, 1)
        XCTAssertEqual(h.downloading, [])
        h.global(.resumeAll)
        XCTAssertEqual(h.downloading, [1])
    }

    func test_R31_loweringMaxActiveSendsTheNewestBack() {
        var h = Harness(maxActive: 3)
        h.add(urls(3))
        h.global(.maxActive(1))
        XCTAssertEqual(h.state(1), .downloading)
        XCTAssertEqual(h.state(2), .queued)
        XCTAssertEqual(h.state(3), .queued)
    }

    func test_R31_theGlobalLimitIsSharedAmongTransfers() {
        var h = Harness(maxActive: 2, globalLimit: 1000)
        h.add(urls(2))
        let turn = h.global(.globalLimit(600))
        XCTAssertEqual(turn.speedLimits.map(\.bytesPerSecond), [300, 300])
        XCTAssertEqual(h.control(1, .limit(100)), .done)
    }

    // MARK: mv in files/ (R40, R34)

    func test_R40_renameIsDecidedAgainstEveryTaskAndFile() {
        var h = Harness(maxActive: 1, onDisk: ["plain.bin"])
        h.add(["http://h/a.iso", "http://h/b.iso", "http://h/q.iso"])
        h.complete(1)
        h.complete(2)
        func rename(_ id: Int64, _ name: String) -> TaskSetTurn { h.run(.rename(id, to: name, token: h.nextToken())) }
        XCTAssertEqual(rename(1, "b.iso").replies.map(\.reply), [.renameRefused(.exists)], "another task's file")
        XCTAssertEqual(rename(1, "q.iso").replies.map(\.reply), [.renameRefused(.exists)], "a waiting task's name")
        XCTAssertEqual(rename(1, "plain.bin").replies.map(\.reply), [.renameRefused(.exists)], "a file on disk")
        XCTAssertEqual(rename(1, ".hidden").replies.map(\.reply), [.renameRefused(.badName)])
        XCTAssertEqual(rename(3, "x.iso").replies.map(\.reply), [.renameRefused(.missing)], "not completed")
        let done = rename(1, "c.iso")
        XCTAssertEqual(done.replies.map(\.reply), [.done])
        XCTAssertEqual(done.renames.map { [$0.from, $0.to] }, [["a.iso", "c.iso"]])
        XCTAssertEqual(done.changes.map(\.event), ["renamed"])
        XCTAssertEqual(h.set.tasks[1]?.name, "c.iso")
    }

    func test_R34_renameOfAFileWithoutATask() {
        var h = Harness(maxActive: 1, onDisk: ["plain.bin", "other.bin"])
        h.add(["http://h/a.iso"])
        func rename(_ name: String, _ to: String) -> TaskSetTurn { h.run(.renameFile(name, to: to, isFolder: false, token: h.nextToken())) }
        XCTAssertEqual(rename("plain.bin", "a.iso").replies.map(\.reply), [.renameRefused(.exists)], "a task's name")
        XCTAssertEqual(rename("plain.bin", "other.bin").replies.map(\.reply), [.renameRefused(.exists)])
        XCTAssertEqual(rename("plain.bin", "a/.b").replies.map(\.reply), [.renameRefused(.badName)])
        XCTAssertEqual(rename("a.iso", "z.bin").replies.map(\.reply), [.renameRefused(.missing)], "a task's file goes by its task")
        let done = rename("plain.bin", "new.bin")
        XCTAssertEqual(done.replies.map(\.reply), [.done])
        XCTAssertEqual(done.renames.map { [$0.from, $0.to] }, [["plain.bin", "new.bin"]])
        XCTAssertTrue(done.deleted.isEmpty && done.updated.isEmpty, "no task changes")
    }

    // MARK: folders (R35)

    func test_R35_dirPutsTheNameInItsFolderAndNamesAreUniquePerFolder() {
        var h = Harness(maxActive: 0, onDisk: ["music/b.iso"])
        func add(_ url: String, dir: String?) -> DownloadTask {
            var options = TaskOptions()
            options.folder = dir
            let turn = h.run(.add([InputEntry(url: url, options: options, line: 1)], token: h.nextToken()))
            guard case .ids(let ids)? = turn.replies.first?.reply else { fatalError("no ids") }
            return h.set.tasks[ids[0]]!
        }
        XCTAssertEqual(add("http://h1/a.iso", dir: nil).name, "a.iso")
        let first = add("http://h2/a.iso", dir: "music")
        XCTAssertEqual(first.name, "music/a.iso", "the same name in another folder is free")
        XCTAssertEqual(first.fileName, "a.iso")
        XCTAssertEqual(first.folder, "music")
        XCTAssertNil(first.options.folder, "the place holds the folder; the option is not kept")
        XCTAssertEqual(add("http://h3/a.iso", dir: "music").name, "music/a (1).iso")
        XCTAssertEqual(add("http://h4/b.iso", dir: "music").name, "music/b (1).iso", "a file on disk in the folder")
        XCTAssertEqual(add("http://h5/a.iso", dir: "music/live").name, "music/live/a.iso")
    }

    func test_R35_aNameFromTheServerStaysInTheTasksFolder() {
        var h = Harness(maxActive: 1)
        var options = TaskOptions()
        options.folder = "isos"
        h.run(.add([InputEntry(url: "http://h/get?id=1", options: options, line: 1)], token: h.nextToken()))
        let serial = h.set.tasks[1]!.serial
        let response = ResponseSummary(head: ResponseHead(status: 200, contentLength: 10),
                                       contentDisposition: "attachment; filename=\"debian.iso\"",
                                       effectiveURL: "http://h/get?id=1")
        h.run(.report(1, .responded(serial: serial, response: response, decision: .append(total: 10), name: nil)))
        XCTAssertEqual(h.set.tasks[1]?.name, "isos/debian.iso")
    }

    func test_R17_aServerNameThatFallsBackToTheURLsKeepsTheTasksOwnNumber() {
        var h = Harness(maxActive: 2, onDisk: ["x.bin"])
        h.run(.add([InputEntry(url: "http://h/x.bin", options: TaskOptions(), line: 1)], token: h.nextToken()))
        XCTAssertEqual(h.set.tasks[1]?.name, "x (1).bin")
        let serial = h.set.tasks[1]!.serial
        // A Content-Disposition name that cleans to nothing: the URL's name again.
        let response = ResponseSummary(head: ResponseHead(status: 200, contentLength: 10),
                                       contentDisposition: "attachment; filename=\"..\"", effectiveURL: "http://h/x.bin")
        h.run(.report(1, .responded(serial: serial, response: response, decision: .append(total: 10), name: nil)))
        XCTAssertEqual(h.set.tasks[1]?.name, "x (1).bin", "its own (1), not (2)")
        h.run(.add([InputEntry(url: "http://h2/x.bin", options: TaskOptions(), line: 1)], token: h.nextToken()))
        XCTAssertEqual(h.set.tasks[2]?.name, "x (2).bin")
    }

    func test_R35_movingAFolderMovesItsTasksAndNothingElse() {
        var h = Harness(maxActive: 1, onDisk: ["music", "audio"])
        var options = TaskOptions()
        options.folder = "music"
        let entries = ["http://h/a.iso", "http://h/b.iso", "http://h/c.iso"].enumerated().map {
            InputEntry(url: $1, options: $0 == 2 ? TaskOptions() : options, line: $0 + 1)
        }
        h.run(.add(entries, token: h.nextToken()))
        h.complete(1)
        func move(_ from: String, _ to: String) -> TaskSetTurn {
            h.run(.renameFile(from, to: to, isFolder: true, token: h.nextToken()))
        }
        XCTAssertEqual(move("music", "audio").replies.map(\.reply), [.renameRefused(.exists)])
        XCTAssertEqual(move("music", "music/inner").replies.map(\.reply), [.renameRefused(.badName)], "into itself")
        XCTAssertEqual(move("music", ".x").replies.map(\.reply), [.renameRefused(.badName)])
        XCTAssertEqual(h.set.tasks[1]?.name, "music/a.iso", "refusals change nothing")
        let done = move("music", "audio/old")
        XCTAssertEqual(done.replies.map(\.reply), [.done])
        XCTAssertEqual(done.renames.map { [$0.from, $0.to] }, [["music", "audio/old"]])
        XCTAssertEqual(h.set.tasks[1]?.name, "audio/old/a.iso", "a completed task's file")
        XCTAssertEqual(h.set.tasks[2]?.name, "audio/old/b.iso", "a waiting task's place")
        XCTAssertEqual(h.set.tasks[3]?.name, "c.iso")
        XCTAssertEqual(Set(done.changes.filter { $0.event == "renamed" }.map(\.id)), [1, 2])
        XCTAssertEqual(done.changes.first?.name, "a.iso", "events name the file, not its folder")
    }

    func test_R35_aFolderWhoseTaskMovesInIsBusy() {
        var h = Harness(maxActive: 1)
        var options = TaskOptions()
        options.folder = "music"
        h.run(.add([InputEntry(url: "http://h/a.iso", options: options, line: 1)], token: h.nextToken()))
        let serial = h.set.tasks[1]!.serial
        h.run(.report(1, .finished(serial: serial, outcome: .completed(bytes: 10, total: 10))))
        XCTAssertTrue(h.set.tasks[1]!.isMovingIntoFiles)
        let turn = h.run(.renameFile("music", to: "audio", isFolder: true, token: h.nextToken()))
        XCTAssertEqual(turn.replies.map(\.reply), [.renameRefused(.busy)])
        XCTAssertTrue(turn.renames.isEmpty)
    }

    func test_R35_mkdirTakesAFreeValidName() {
        var h = Harness(maxActive: 0, onDisk: ["plain.bin"])
        h.add(["http://h/a.iso"])
        func mkdir(_ path: String) -> TaskSetTurn { h.run(.makeFolder(path, token: h.nextToken())) }
        XCTAssertEqual(mkdir("a.iso").replies.map(\.reply), [.renameRefused(.exists)], "a waiting task's name")
        XCTAssertEqual(mkdir("plain.bin").replies.map(\.reply), [.renameRefused(.exists)])
        XCTAssertEqual(mkdir(".cache").replies.map(\.reply), [.renameRefused(.badName)])
        let done = mkdir("music")
        XCTAssertEqual(done.replies.map(\.reply), [.done])
        XCTAssertEqual(done.folders, ["music"])
        XCTAssertTrue(done.updated.isEmpty && done.inserted.isEmpty)
    }

    func test_R35_aCompletedTasksFileMovesToAnotherFolder() {
        var h = Harness(maxActive: 1)
        h.add(["http://h/a.iso"])
        h.complete(1)
        let done = h.run(.rename(1, to: "music/a.iso", token: h.nextToken()))
        XCTAssertEqual(done.replies.map(\.reply), [.done])
        XCTAssertEqual(done.renames.map { [$0.from, $0.to] }, [["a.iso", "music/a.iso"]])
        XCTAssertEqual(h.set.tasks[1]?.folder, "music")
    }

    // MARK: split (R18, R31)

    func test_R31_theGlobalSplitReachesRunningTasksWithoutTheirOwn() {
        var h = Harness(maxActive: 2)
        h.add(urls(2))
        XCTAssertEqual(h.control(2, .split(3)), .done)
        let turn = h.global(.globalSplit(6))
        XCTAssertEqual(turn.splits.map(\.id), [1, 2])
        XCTAssertEqual(h.set.split(of: h.set.tasks[1]!), SplitPolicy.choose(task: nil, mount: 6))
        XCTAssertEqual(h.set.split(of: h.set.tasks[2]!), SplitPolicy.choose(task: 3, mount: 6))
    }

    // MARK: forget (R34)

    func test_R34_forgetDropsACompletedTaskAndKeepsItsName() {
        var h = Harness(maxActive: 1)
        h.add(["http://h/a.iso"])
        h.complete(1)
        var turn = TaskSetTurn()
        h.set.handle(.control(1, .forget, token: 5), now: h.now, monotonic: 0, into: &turn)
        XCTAssertNil(h.set.tasks[1])
        XCTAssertEqual(turn.deleted, [1])
        XCTAssertEqual(turn.changes.map(\.event), ["forgotten"])
        XCTAssertEqual(turn.effects.map(\.effect), [.keepFile(name: "a.iso")])
        XCTAssertEqual(turn.replies.map(\.reply), [.done])
        // Its URL makes a new task.
        XCTAssertEqual(h.add(["http://h/a.iso"]), [2])
    }

    func test_R34_forgetRefusesATaskNotCompleted() {
        var h = Harness(maxActive: 1)
        h.add(urls(2))
        guard case .refused(let why)? = h.control(2, .forget) else { return XCTFail("forget of a queued task") }
        XCTAssertTrue(why.contains("only a completed task"), why)
        XCTAssertNotNil(h.set.tasks[2])
    }

    func test_R34_forgetCompletedLeavesUnfinishedTasksAlone() {
        var h = Harness(maxActive: 2)
        h.add(urls(4))
        h.complete(1)
        h.complete(2)
        let turn = h.global(.forgetCompleted)
        XCTAssertEqual(turn.deleted, [1, 2])
        XCTAssertEqual(h.set.tasks.count, 2)
        XCTAssertEqual(h.downloading, [3, 4])
    }

    /// A million completed tasks are forgotten a turn's worth at a time,
    /// each turn saying there is more, and the writer is answered once all
    /// are gone.
    func test_R34_forgetCompletedGoesATurnsWorthAtATime() {
        var h = Harness(maxActive: 0)
        let count = TaskSet.forgetPerTurn * 2 + 500
        for id in 1...Int64(count) {
            var task = DownloadTask(url: "http://h/\(id)", normalizedURL: "http://h/\(id)", options: TaskOptions(),
                                    name: "f\(id)", addedAt: h.now, position: id)
            task.id = id
            task.state = .completed
            _ = h.set.load(task, disk: DataOnDisk(partialSize: nil, finishedSize: 0), now: h.now)
        }
        var turns: [TaskSetTurn] = []
        turns.append(h.run(.controlGlobal(.forgetCompleted, token: 42)))
        while turns.last!.moreToDo, turns.count < 10 { turns.append(h.run(.schedule)) }
        XCTAssertEqual(h.set.tasks.count, 0)
        XCTAssertEqual(turns.map(\.deleted.count).reduce(0, +), count)
        XCTAssertLessThanOrEqual(turns.map(\.deleted.count).max()!, 2 * TaskSet.forgetPerTurn)
        XCTAssertEqual(turns.flatMap(\.replies).map(\.token), [42], "answered once, at the end")
        XCTAssertEqual(turns.last!.replies.map(\.token), [42])
        XCTAssertFalse(turns.last!.moreToDo)
    }

    /// R50: the downloads that ran carry on after a mount, ahead of tasks
    /// moved before them while they ran (`top`, `move`), in their own order.
    func test_R50_tasksThatWereDownloadingGoFirstAfterAMount() {
        var h = Harness(maxActive: 1)
        let stored: [(Int64, TaskState, Int64)] = [(1, .downloading, 3), (2, .queued, 0), (3, .downloading, 1), (4, .queued, 2)]
        for (id, state, position) in stored {
            var task = DownloadTask(url: "http://h/\(id)", normalizedURL: "http://h/\(id)", options: TaskOptions(),
                                    name: "f\(id)", addedAt: h.now, position: position)
            task.id = id
            task.state = state
            _ = h.set.load(task, disk: DataOnDisk(partialSize: nil, finishedSize: nil), now: h.now)
        }
        let moved = h.set.finishLoading()
        XCTAssertEqual(moved.map(\.taskID), [3, 1], "to save: their places changed")
        XCTAssertEqual(h.set.tasks.snapshot.waitingLine(), [3, 1, 2, 4])
        h.global(.maxActive(2))
        XCTAssertEqual(Set(h.downloading), [3, 1])
        XCTAssertEqual(h.set.finishLoading(), [], "once")
    }

    // MARK: undo

    func test_undoPutsEverythingBack() {
        var h = Harness(maxActive: 1)
        h.add(urls(3))
        let before = h.set.tasks.sortedIDs.map { h.set.tasks[$0]! }
        var turn = TaskSetTurn()
        h.set.handle(.add([InputEntry(url: "http://h/new.bin", line: 1)], token: 9), now: h.now, monotonic: 0, into: &turn)
        h.set.handle(.control(3, .move(0), token: 10), now: h.now, monotonic: 0, into: &turn)
        h.set.handle(.controlGlobal(.maxActive(5), token: 11), now: h.now, monotonic: 0, into: &turn)
        h.set.undo(turn)
        XCTAssertEqual(h.set.tasks.sortedIDs.map { h.set.tasks[$0]! }, before)
        XCTAssertEqual(h.set.maxActive, 1)
        // The undone task's id is given again: it was never committed.
        XCTAssertEqual(h.add(["http://h/other.bin"]), [4])
    }

    // MARK: the model

    /// Random requests and reports against the scheduling rules: never more
    /// than max-active downloading, the first queued start first unless
    /// moved, a paused task never starts by itself, every R31 command.
    func test_randomRequestsKeepTheSchedulingRules() {
        for seed in UInt64(1)...40 {
            var random = SplitMix64(seed: seed)
            var h = Harness(maxActive: 2, seed: seed)
            var maxActive = 2
            for _ in 0..<200 {
                let ids = h.set.tasks.sortedIDs
                let pick = ids.isEmpty ? 1 : ids[Int(random.next() % UInt64(ids.count))]
                let pausedBefore = Set(ids.filter { h.state($0) == .paused })
                let queuedBefore = ids.filter { h.state($0) == .queued }
                    .sorted { (h.set.tasks[$0]!.position, $0) < (h.set.tasks[$1]!.position, $1) }
                var userMoved = false
                switch random.next() % 12 {
                case 0, 1: h.add(["http://h/\(random.next() % 40).bin"])
                case 2: h.control(pick, .pause); userMoved = true
                case 3: h.control(pick, .resume); userMoved = true
                case 4: h.control(pick, .start); userMoved = true
                case 5: h.control(pick, .move(Int(random.next() % 5))); userMoved = true
                case 6:
                    maxActive = Int(random.next() % 4) + 1
                    h.global(.maxActive(maxActive))
                case 7: h.global(random.next() % 2 == 0 ? .pauseAll : .resumeAll); userMoved = true
                case 8: h.global(.forgetCompleted)
                case 9: if h.state(pick) == .downloading, h.set.tasks[pick]!.stopping == nil { h.complete(pick) }
                case 10: if h.set.tasks[pick]?.stopping != nil { _ = h.stopped(pick) }
                default: h.run(.remove(pick, token: h.nextToken()))
                }
                // A task on its way out (a stop not yet settled) still holds its slot.
                let downloading = h.all.filter { $0.state.isRunning && !SchedulableTask($0).leaving }
                let seedText = "seed \(seed): " + downloading.map { "\($0.taskID) \($0.state) stopping \(String(describing: $0.stopping)) transferring \($0.transferring)" }.joined(separator: "; ")
                XCTAssertLessThanOrEqual(downloading.count, maxActive, seedText)
                if !userMoved {
                    for id in pausedBefore { XCTAssertNotEqual(h.state(id), .downloading, "paused \(id) started, \(seedText)") }
                    // First in, first out: a task that started passed no one still waiting.
                    let started = queuedBefore.filter { h.state($0) == .downloading }
                    let stillWaiting = queuedBefore.filter { h.state($0) == .queued }
                    if let lastStarted = started.last, let firstWaiting = stillWaiting.first {
                        XCTAssertLessThan(queuedBefore.firstIndex(of: lastStarted)!, queuedBefore.firstIndex(of: firstWaiting)!,
                                          seedText)
                    }
                }
                if h.state(pick) == .completed || h.set.tasks[pick] == nil { continue }
            }
        }
    }
}
