import XCTest
@testable import DownloadFSCore

/// The task machine: every event in every state, the legal and the illegal.
final class TaskMachineTests: XCTestCase {
    private let machine = TaskMachine(retry: RetryPolicy(maxTries: 3))
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// When a worker moved a finished file into place, a little before the turn that hears of it.
    private let landedAt = Date(timeIntervalSince1970: 1_799_999_999)

    private func task(_ state: TaskState = .queued, downloaded: Int64 = 0, serial: UInt64 = 0,
                      transferring: Bool = false, checksum: Checksum? = nil) -> DownloadTask {
        var task = DownloadTask(url: "https://h/file.iso", normalizedURL: "https://h/file.iso",
                                options: TaskOptions(checksum: checksum), name: "file.iso", addedAt: now, position: 1)
        task.id = 7
        task.state = state
        task.downloaded = downloaded
        task.serial = serial
        task.phase = transferring ? .transferring : .idle
        return task
    }

    private func running(downloaded: Int64 = 0, checksum: Checksum? = nil) -> DownloadTask {
        task(.downloading, downloaded: downloaded, serial: 5, transferring: true, checksum: checksum)
    }

    private func apply(_ event: TaskEvent, _ task: DownloadTask, jitter: Double = 0.5) throws -> TaskTransition {
        try machine.apply(event, to: task, now: now, jitter: jitter)
    }

    private let response = ResponseSummary(head: ResponseHead(status: 200, contentLength: 100, etag: "\"e\""),
                                           contentType: "text/plain", effectiveURL: "https://h/final.iso")

    /// Every state, and the phases a task in it can be in.
    private var sweepStarts: [(TaskState, AttemptPhase)] {
        TaskState.allCases.map { ($0, AttemptPhase.idle) } + [
            (.downloading, .transferring), (.downloading, .stopping(.pause)), (.verifying, .syncing),
            (.downloading, .movingIn), (.verifying, .movingIn),
        ]
    }

    /// One of each event, for the exhaustive sweep.
    private var everyEvent: [TaskEvent] {
        [.pause(log: "paused"), .resume(log: "resumed"), .requeue(log: "start requested"),
         .moved(position: 3, log: "moved"), .forget, .syncing(serial: 5),
         .limit(bytesPerSecond: 1024), .split(4), .renamed(to: "other.iso"), .remove, .begin(serial: 9, at: 1),
         .demote(log: "demoted"), .backoffOver, .read(serial: 11),
         .responded(serial: 5, response: response, decision: .append(total: 100), name: nil),
         .checkpointed(serial: 5, ranges: .prefix(50)), .finished(serial: 5, outcome: .stopped(ranges: .prefix(60))),
         .finished(serial: 5, outcome: .completed(bytes: 100, total: 100)),
         .finished(serial: 5, outcome: .failed(.connectionReset, ranges: .prefix(10), receivedData: true)),
         .finished(serial: 5, outcome: .restart(reason: "odd")),
         .mirrorDropped(serial: 5, url: "https://h/file.iso", reason: "HTTP 404 Not Found"),
         .noted(serial: 5, line: "endgame"),
         .verified(serial: 5, result: .matched), .finalized(serial: 5, result: .moved(name: "file.iso", at: landedAt)),
         .reconcile(DataOnDisk(partialSize: 10, finishedSize: nil))]
    }

    // MARK: - the sweep

    /// What each event of `everyEvent` makes of a task in each of
    /// `sweepStarts`: the state after it (its first four letters), `x` when
    /// it is refused, `-` when the task is gone. Written out, not read from
    /// `TaskState`'s table, so a change to that table (or to the machine)
    /// fails here and names the state, the phase and the event.
    private let expectedSweep = [
        //                        paus resu requ move forg sync lim  spl  ren  rm   begi demo back read resp chec stop comp fail rest mirr note veri fina reco
        "queued/idle":             "paus queu queu queu x    queu queu queu queu -    down x    x    queu queu queu queu queu queu queu queu queu queu queu queu",
        "downloading/idle":        "x    down x    x    x    down down down down -    x    queu x    down down down down down down down down down down down queu",
        "paused/idle":             "paus queu queu paus x    paus paus paus paus -    x    x    x    paus paus paus paus paus paus paus paus paus paus paus paus",
        "retrying/idle":           "paus retr queu x    x    retr retr retr retr -    x    x    queu retr retr retr retr retr retr retr retr retr retr retr queu",
        "verifying/idle":          "x    veri x    x    x    veri veri veri veri -    x    x    x    veri veri veri veri veri veri veri veri veri veri veri queu",
        "completed/idle":          "x    x    x    x    -    comp comp comp comp -    x    x    x    comp comp comp comp comp comp comp comp comp comp comp fail",
        "failed/idle":             "x    queu queu x    x    fail fail fail fail -    x    x    x    fail fail fail fail fail fail fail fail fail fail fail fail",
        "downloading/transferring": "down down x    x    x    veri down down down -    x    queu x    down down down down down retr retr down down down down queu",
        "downloading/stopping":    "down down x    x    x    down down down down -    x    x    x    down down down paus down paus paus down down down down queu",
        "verifying/syncing":       "x    veri x    x    x    veri veri veri veri -    x    x    x    veri veri veri veri veri x    x    veri veri veri veri queu",
        "downloading/movingIn":    "x    down x    x    x    down down down x    -    x    queu x    down down down down down down down down down down comp queu",
        "verifying/movingIn":      "x    veri x    x    x    veri veri veri x    -    x    x    x    veri veri veri veri veri veri veri veri veri veri comp queu",
    ]

    private static let sweepEventNames = "pause resume requeue moved forget syncing limit split renamed remove begin demote "
        + "backoffOver read responded checkpointed stopped completed failed restart mirrorDropped noted verified finalized reconcile"

    func test_R15_everyEventInEveryStateAndPhaseGivesTheWrittenOutcome() {
        let names = Self.sweepEventNames.split(separator: " ")
        XCTAssertEqual(names.count, everyEvent.count)
        for (state, phase) in sweepStarts {
            var before = task(state, downloaded: 20, serial: 5)
            before.phase = phase
            let key = "\(state.rawValue)/\(String(describing: phase).split(separator: "(").first!)"
            guard let row = expectedSweep[key]?.split(separator: " ", omittingEmptySubsequences: true) else {
                XCTFail("no expected row for \(key)")
                continue
            }
            for (event, (name, expected)) in zip(everyEvent, zip(names, row)) {
                let got: String
                if let step = try? apply(event, before) {
                    got = step.removed ? "-" : String(step.task.state.rawValue.prefix(4))
                    XCTAssertTrue(step.removed || step.task.state == state || state.canTransition(to: step.task.state),
                                  "\(name) in \(key) moved outside TaskState's table")
                    XCTAssertEqual(step.task.id, before.id)
                } else {
                    got = "x"
                }
                XCTAssertEqual(got, String(expected), "\(name) in \(key)")
            }
        }
    }

    func test_R15_illegalEventsAreRefusedWithASentence() {
        for state in TaskState.allCases where state != .queued {
            XCTAssertThrowsError(try apply(.begin(serial: 1, at: 0), task(state)), "begin from \(state)")
        }
        for state in TaskState.allCases where state != .retrying {
            XCTAssertThrowsError(try apply(.backoffOver, task(state)), "backoffOver from \(state)")
        }
        for state in [TaskState.verifying, .completed, .failed] {
            XCTAssertThrowsError(try apply(.pause(log: "p"), task(state))) { error in
                XCTAssertEqual((error as? TaskMachineError)?.message, "cannot pause a \(state.rawValue) task")
            }
        }
        XCTAssertThrowsError(try apply(.resume(log: "r"), task(.completed))) { error in
            XCTAssertEqual((error as? TaskMachineError)?.message, "task 7 is already completed")
        }
        // A task whose folder moves (R35) is renamed in any state; never while its file moves in.
        var movingIn = task(.downloading)
        movingIn.phase = .movingIn
        XCTAssertThrowsError(try apply(.renamed(to: "x"), movingIn)) { error in
            XCTAssertEqual((error as? TaskMachineError)?.message, "task 7's file is being moved into files/ right now")
        }
        for state in TaskState.allCases where state != .downloading {
            XCTAssertThrowsError(try apply(.demote(log: "d"), task(state)))
        }
        XCTAssertThrowsError(try apply(.requeue(log: "x"), task(.completed)))
        XCTAssertThrowsError(try apply(.requeue(log: "x"), task(.verifying)))
    }

    func test_R15_staleReportsChangeNothing() throws {
        let current = running(downloaded: 10)
        for event: TaskEvent in [
            .checkpointed(serial: 4, ranges: .prefix(99)), .finished(serial: 4, outcome: .completed(bytes: 100, total: 100)),
            .responded(serial: 4, response: response, decision: .startOver(total: 1, reason: "x"), name: "n"),
            .verified(serial: 4, result: .matched), .finalized(serial: 4, result: .moved(name: "x", at: landedAt)),
            .mirrorDropped(serial: 4, url: "https://h/file.iso", reason: "HTTP 404 Not Found"),
            .noted(serial: 4, line: "endgame: …"),
        ] {
            XCTAssertEqual(try apply(event, current), TaskTransition(task: current), "\(event)")
        }
        // A report for a transfer that already finished is stale too.
        var done = current
        done.phase = .idle
        XCTAssertEqual(try apply(.checkpointed(serial: 5, ranges: .prefix(99)), done).task.downloaded, 10)
    }

    // MARK: - mirrors (R19)

    private func withMirrors(_ task: DownloadTask, _ mirrors: [String]) -> DownloadTask {
        var task = task
        task.options.mirrors = mirrors
        return task
    }

    func test_R19_aDroppedMirrorIsRememberedOnceAndLogged() throws {
        let task = withMirrors(running(downloaded: 10), ["https://user:secret@m1/file.iso", "https://m2/file.iso"])
        let step = try apply(.mirrorDropped(serial: 5, url: "https://user:secret@m1/file.iso", reason: "HTTP 404 Not Found"),
                             task)
        XCTAssertEqual(step.task.droppedMirrors, ["https://user:secret@m1/file.iso"], "the catalog keeps the real URL")
        XCTAssertEqual(step.log, ["mirror https://user:***@m1/file.iso dropped: HTTP 404 Not Found"])
        XCTAssertEqual(step.task.liveURLs, ["https://h/file.iso", "https://m2/file.iso"])
        XCTAssertEqual(step.task.state, .downloading, "dropping a mirror alone ends nothing")
        XCTAssertEqual(step.effects, [])
        XCTAssertEqual(step.task.downloaded, 10)

        let again = try apply(.mirrorDropped(serial: 5, url: "https://user:secret@m1/file.iso", reason: "HTTP 410 Gone"),
                              step.task)
        XCTAssertEqual(again, TaskTransition(task: step.task), "once")

        let first = try apply(.mirrorDropped(serial: 5, url: "https://h/file.iso", reason: "another total"), step.task)
        XCTAssertEqual(first.task.droppedMirrors, ["https://user:secret@m1/file.iso", "https://h/file.iso"])
        XCTAssertEqual(first.task.liveURLs, ["https://m2/file.iso"], "the first URL can be dropped too")
        XCTAssertEqual(first.task.url, "https://h/file.iso", "url stays the first URL")
    }

    func test_R19_aReportForAnotherAttemptOrAnotherURLChangesNothing() throws {
        let task = withMirrors(running(), ["https://m1/file.iso"])
        for event: TaskEvent in [
            .mirrorDropped(serial: 4, url: "https://m1/file.iso", reason: "HTTP 404 Not Found"),
            .mirrorDropped(serial: 5, url: "https://elsewhere/file.iso", reason: "HTTP 404 Not Found"),
        ] {
            XCTAssertEqual(try apply(event, task), TaskTransition(task: task), "\(event)")
        }
        var finished = task
        finished.phase = .idle
        XCTAssertEqual(try apply(.mirrorDropped(serial: 5, url: "https://m1/file.iso", reason: "x"), finished),
                       TaskTransition(task: finished), "the transfer already reported its end")
    }

    func test_R19_resumingAFailedTaskTriesEveryURLAgain() throws {
        var failed = withMirrors(task(.failed), ["https://m1/file.iso"])
        failed.droppedMirrors = ["https://h/file.iso", "https://m1/file.iso"]
        for event: TaskEvent in [.resume(log: "resumed"), .requeue(log: "start requested")] {
            let step = try apply(event, failed)
            XCTAssertEqual(step.task.state, .queued)
            XCTAssertEqual(step.task.droppedMirrors, [])
            XCTAssertEqual(step.task.liveURLs, ["https://h/file.iso", "https://m1/file.iso"])
            XCTAssertEqual(step.log.last, "2 dropped URLs will be tried again")
        }
        var paused = failed
        paused.state = .paused
        XCTAssertEqual(try apply(.resume(log: "resumed"), paused).task.droppedMirrors, failed.droppedMirrors,
                       "a pause is no reason to try a dropped mirror again")
    }

    // MARK: - commands (R30, R31)

    func test_R30_pauseWaitsForTheFinalCount() throws {
        let paused = try apply(.pause(log: "paused"), running(downloaded: 10))
        XCTAssertEqual(paused.task.state, .downloading, "shown paused only with its final count")
        XCTAssertEqual(paused.task.stopping, .pause)
        XCTAssertEqual(paused.effects, [.stopTransfer(serial: 5)])
        XCTAssertEqual(try apply(.pause(log: "paused"), paused.task).effects, [], "one stop is enough")
        let stopped = try apply(.finished(serial: 5, outcome: .stopped(ranges: .prefix(64))), paused.task)
        XCTAssertEqual(stopped.task.state, .paused)
        XCTAssertEqual(stopped.task.downloaded, 64)
        XCTAssertFalse(stopped.task.transferring)
        XCTAssertNil(stopped.task.stopping)
        XCTAssertEqual(stopped.log, ["paused"])
    }

    func test_R30_pauseOfWaitingTasksIsImmediate() throws {
        for state in [TaskState.queued, .retrying] {
            var waiting = task(state)
            waiting.retryAt = now
            let step = try apply(.pause(log: "paused (pause-all)"), waiting)
            XCTAssertEqual(step.task.state, .paused)
            XCTAssertNil(step.task.retryAt)
            XCTAssertEqual(step.log, ["paused (pause-all)"])
        }
        XCTAssertEqual(try apply(.pause(log: "p"), task(.paused)), TaskTransition(task: task(.paused)))
    }

    func test_R30_pauseWhileTheFileIsBeingMovedIsRefused() {
        XCTAssertThrowsError(try apply(.pause(log: "p"), task(.downloading, serial: 5, transferring: false)))
    }

    func test_R30_resumeDuringAPauseGoesBackToTheLine() throws {
        let pausing = try apply(.pause(log: "paused"), running()).task
        let resumed = try apply(.resume(log: "resumed"), pausing)
        XCTAssertEqual(resumed.task.stopping, .requeue)
        XCTAssertEqual(resumed.effects, [])
        let stopped = try apply(.finished(serial: 5, outcome: .stopped(ranges: .prefix(8))), resumed.task)
        XCTAssertEqual(stopped.task.state, .queued)
    }

    func test_R30_resumeClearsTheErrorAndTries() throws {
        var failed = task(.failed)
        failed.error = "HTTP 503"
        failed.failuresWithoutData = 3
        let step = try apply(.resume(log: "resumed"), failed)
        XCTAssertEqual(step.task.state, .queued)
        XCTAssertNil(step.task.error)
        XCTAssertEqual(step.task.failuresWithoutData, 0)
        for state in [TaskState.queued, .downloading, .retrying, .verifying] {
            XCTAssertEqual(try apply(.resume(log: "r"), task(state)).task.state, state)
        }
    }

    func test_R30_limit() throws {
        let limited = try apply(.limit(bytesPerSecond: 2048), task())
        XCTAssertEqual(limited.task.speedLimit, 2048)
        XCTAssertEqual(limited.log, ["speed limit 2.0 KiB/s"])
        XCTAssertEqual(try apply(.limit(bytesPerSecond: 0), task()).log, ["speed limit removed"])
    }

    /// R18, R30: `split N` is taken in every state, like `limit`, and changes
    /// nothing but the task's count: no state change, no effect.
    func test_R18_R30_splitIsTakenInEveryStateAndLogged() throws {
        for state in TaskState.allCases {
            for transferring in [false, true] where !transferring || state == .downloading {
                let before = task(state, downloaded: 20, serial: 5, transferring: transferring)
                let step = try apply(.split(6), before)
                XCTAssertEqual(step.task.split, 6, "\(state)")
                XCTAssertEqual(step.task.state, state)
                XCTAssertEqual(step.log, ["split: 6 connections"])
                XCTAssertEqual(step.effects, [])
                var expected = before
                expected.split = 6
                XCTAssertEqual(step.task, expected, "only the count changes")
            }
        }
        XCTAssertEqual(try apply(.split(1), task()).log, ["split: 1 connection"])
    }

    func test_R32_removeStopsAndDeletesEverything() throws {
        let step = try apply(.remove, running())
        XCTAssertTrue(step.removed)
        XCTAssertEqual(step.effects, [.stopTransfer(serial: 5), .failReads, .deletePartial, .wake("failed: task removed\n")])
        let done = try apply(.remove, task(.completed))
        XCTAssertEqual(done.effects, [.failReads, .deletePartial, .deleteFinished(name: "file.iso"),
                                      .wake("failed: task removed\n")])
        var read = task(.paused)
        read.reading = 8
        XCTAssertEqual(try apply(.remove, read).effects.first, .stopTransfer(serial: 0), "a reading attempt is stopped too")
    }

    // MARK: - readers (R23)

    private func known(_ state: TaskState, total: Int64? = 100) -> DownloadTask {
        var task = task(state, downloaded: 20)
        task.total = total
        return task
    }

    func test_R23_aReadOfAWaitingOrPausedTaskStartsAReadingAttemptAndKeepsTheState() throws {
        for state in [TaskState.queued, .paused, .retrying] {
            let before = known(state)
            let step = try apply(.read(serial: 11), before)
            XCTAssertEqual(step.task.state, state)
            XCTAssertEqual(step.task.reading, 11)
            XCTAssertFalse(step.task.transferring, "not a download: the scheduler does not count it")
            XCTAssertEqual(step.effects, [.startReading(serial: 11, stored: before.stored)])
            XCTAssertEqual(step.log, [], "reads are not logged")
            XCTAssertFalse(step.task.differsInCatalog(from: before), "nothing to commit")
            XCTAssertEqual(try apply(.read(serial: 12), step.task).effects, [.fetchReads],
                           "a second read goes to the same attempt")
        }
        XCTAssertEqual(try apply(.read(serial: 11), known(.paused, total: nil)).effects, [.releaseReads],
                       "no total: the file grows; the reader looks again")
    }

    func test_R23_readsOfOtherStates() throws {
        XCTAssertEqual(try apply(.read(serial: 11), running()).effects, [.fetchReads])
        XCTAssertEqual(try apply(.read(serial: 11), known(.failed)).effects, [.failReads], "a failed task's bytes: EIO")
        XCTAssertEqual(try apply(.read(serial: 11), known(.completed)).effects, [.releaseReads])
        XCTAssertEqual(try apply(.read(serial: 11), known(.verifying)).effects, [], "every byte is here")
    }

    func test_R23_aReadingAttemptKeepsWhatItFetchedAndNeverMovesTheTask() throws {
        var reading = known(.paused)
        reading.reading = 11
        var step = try apply(.checkpointed(serial: 11, ranges: ByteRanges([0..<20, 50..<60])), reading)
        XCTAssertEqual(step.task.ranges, ByteRanges([0..<20, 50..<60]))
        step = try apply(.finished(serial: 11, outcome: .stopped(ranges: ByteRanges([0..<20, 50..<70]))), step.task)
        XCTAssertEqual(step.task.state, .paused)
        XCTAssertNil(step.task.reading)
        XCTAssertEqual(step.task.downloaded, 40)
        XCTAssertEqual(step.effects, [])
        let failed = try apply(.finished(serial: 11, outcome: .failed(.connectionRefused, ranges: .prefix(20),
                                                                        receivedData: false)), reading)
        XCTAssertEqual(failed.task.state, .paused, "a read's failure is not the task's")
        XCTAssertEqual(failed.task.attempts, reading.attempts)
        XCTAssertEqual(failed.effects, [.failReads])
        XCTAssertEqual(failed.log, ["a read could not be served: connection refused"])
        let began = try apply(.begin(serial: 12, at: 1), { var t = reading; t.state = .queued; return t }())
        XCTAssertNil(began.task.reading, "the download replaces the reading attempt")
        XCTAssertEqual(try apply(.finished(serial: 11, outcome: .stopped(ranges: .prefix(99))), began.task).task.downloaded,
                       20, "the replaced attempt's report is stale")
    }

    func test_R23_readersAreToldWhenTheTaskEnds() throws {
        var moving = running()
        moving.phase = .movingIn
        XCTAssertTrue(try apply(.finalized(serial: 5, result: .moved(name: "file.iso", at: landedAt)), moving).effects.contains(.releaseReads))
        let failed = try apply(.finished(serial: 5, outcome: .failed(.http(status: 404, retryAfter: nil), ranges: .prefix(0),
                                                                     receivedData: false)), running())
        XCTAssertEqual(failed.task.state, .failed)
        XCTAssertTrue(failed.effects.contains(.failReads))
    }

    func test_R40_renameOfACompletedTask() throws {
        let step = try apply(.renamed(to: "new.iso"), task(.completed))
        XCTAssertEqual(step.task.name, "new.iso")
        XCTAssertEqual(step.log, ["renamed to new.iso"])
    }

    // MARK: - scheduling (R16)

    func test_R16_beginStartsAnAttempt() throws {
        var queued = task(downloaded: 0)
        queued.error = "old"
        let step = try apply(.begin(serial: 9, at: 12), queued)
        XCTAssertEqual(step.task.state, .downloading)
        XCTAssertEqual(step.task.attempts, 1)
        XCTAssertEqual(step.task.serial, 9)
        XCTAssertTrue(step.task.transferring)
        XCTAssertEqual(step.task.startedAt, 12)
        XCTAssertNil(step.task.error)
        XCTAssertEqual(step.effects, [.startTransfer(serial: 9, stored: StoredProgress(offset: 0))])
        XCTAssertEqual(step.log, ["attempt 1 started"])
    }

    func test_R52_beginOfAResumeSaysSo() throws {
        var partial = task(downloaded: 4096)
        partial.etag = "\"e\""
        partial.failuresWithoutData = 2
        partial.error = "connection reset"
        let step = try apply(.begin(serial: 2, at: 0), partial)
        XCTAssertEqual(step.log, ["attempt 1 started", "resuming from byte 4096"])
        XCTAssertEqual(step.task.error, "connection reset", "kept while tries fail in a row")
        var ftp = task(downloaded: 10)
        ftp.url = "ftp://h/x"
        XCTAssertTrue(try apply(.begin(serial: 2, at: 0), ftp).log[1].contains("REST"))
        // Pieces of a segmented download: no one byte to resume from (R52: lines say what really happens).
        var pieces = task(downloaded: 0)
        pieces.etag = "\"e\""
        pieces.ranges = ByteRanges([0..<100, 300..<400])
        XCTAssertEqual(try apply(.begin(serial: 2, at: 0), pieces).log[1],
                       "resuming: 200 bytes already here in 2 pieces; asking for the rest")
    }

    func test_R31_demoteStopsTheTransfer() throws {
        let step = try apply(.demote(log: "sent back"), running())
        XCTAssertEqual(step.task.state, .queued)
        XCTAssertEqual(step.effects, [.stopTransfer(serial: 5)])
        // Its stop report still brings the final count.
        let stopped = try apply(.finished(serial: 5, outcome: .stopped(ranges: .prefix(33))), step.task)
        XCTAssertEqual(stopped.task.state, .queued)
        XCTAssertEqual(stopped.task.downloaded, 33)
    }

    func test_R53_backoffOver() throws {
        var retrying = task(.retrying)
        retrying.retryAt = now
        let step = try apply(.backoffOver, retrying)
        XCTAssertEqual(step.task.state, .queued)
        XCTAssertNil(step.task.retryAt)
    }

    // MARK: - engine reports

    func test_R52_respondedAppendKeepsValidatorsOfAFreshDownload() throws {
        let step = try apply(.responded(serial: 5, response: response, decision: .append(total: 100), name: "final.iso"),
                             running())
        XCTAssertEqual(step.task.etag, "\"e\"")
        XCTAssertEqual(step.task.total, 100)
        XCTAssertEqual(step.task.contentType, "text/plain")
        XCTAssertEqual(step.task.finalURL, "https://h/final.iso")
        XCTAssertEqual(step.task.name, "final.iso")
        XCTAssertEqual(step.log, ["name: final.iso"])
    }

    func test_R52_respondedResumeAndStartOver() throws {
        var partial = running(downloaded: 40)
        partial.etag = "\"old\""
        partial.total = 100
        let resumed = try apply(.responded(serial: 5, response: response, decision: .append(total: 100), name: nil), partial)
        XCTAssertEqual(resumed.task.etag, "\"old\"")
        XCTAssertEqual(resumed.log, ["server resumed at byte 40 (HTTP 200)"])
        // A segmented task's answer starts where its connection asked (R18):
        // the log names that byte, and what is held besides.
        var pieces = running(downloaded: 0)
        pieces.ranges = ByteRanges([0..<10, 50..<60])
        pieces.total = 100
        var partialResponse = response
        partialResponse.head.status = 206
        partialResponse.head.contentRange = ContentRange(start: 60, end: 99, total: 100)
        let segmented = try apply(.responded(serial: 5, response: partialResponse, decision: .append(total: 100), name: nil),
                                  pieces)
        XCTAssertEqual(segmented.log, ["server resumed at byte 60 (HTTP 206); 20 bytes already here in 2 pieces"])
        let over = try apply(.responded(serial: 5, response: response, decision: .startOver(total: 100, reason: "changed"),
                                        name: nil), partial)
        XCTAssertEqual(over.task.downloaded, 0)
        XCTAssertEqual(over.task.etag, "\"e\"")
        XCTAssertEqual(over.log, ["starting over from zero: changed"])
    }

    func test_R17_outNameIsNeverReplaced() throws {
        var named = running()
        named.options.out = "mine.iso"
        named.name = "mine.iso"
        let step = try apply(.responded(serial: 5, response: response, decision: .append(total: 1), name: "other"), named)
        XCTAssertEqual(step.task.name, "mine.iso")
    }

    func test_R51_checkpointCommitsTheSyncedCount() throws {
        XCTAssertEqual(try apply(.checkpointed(serial: 5, ranges: .prefix(8 << 20)), running()).task.downloaded, 8 << 20)
    }

    /// R18: what segments left on disk is kept as it is, holes and all; the
    /// count is its sum.
    func test_R18_checkpointsAndStopsKeepEveryRange() throws {
        let pieces = ByteRanges([0..<(1 << 20), (4 << 20)..<(6 << 20)])
        let checkpointed = try apply(.checkpointed(serial: 5, ranges: pieces), running()).task
        XCTAssertEqual(checkpointed.ranges, pieces)
        XCTAssertEqual(checkpointed.downloaded, 3 << 20)
        var pausing = running()
        pausing.phase = .stopping(.pause)
        let paused = try apply(.finished(serial: 5, outcome: .stopped(ranges: pieces)), pausing).task
        XCTAssertEqual(paused.state, .paused)
        XCTAssertEqual(paused.ranges, pieces)
        let failed = try apply(.finished(serial: 5, outcome: .failed(.connectionReset, ranges: pieces, receivedData: true)),
                               running()).task
        XCTAssertEqual(failed.ranges, pieces)
    }

    func test_R53_transientFailureRetriesWithBackoff() throws {
        let step = try apply(.finished(serial: 5, outcome: .failed(.connectionReset, ranges: .prefix(10), receivedData: false)),
                             running(), jitter: 0.5)
        XCTAssertEqual(step.task.state, .retrying)
        XCTAssertEqual(step.task.failuresWithoutData, 1)
        XCTAssertEqual(step.task.retryAt, now.addingTimeInterval(1))
        XCTAssertEqual(step.task.downloaded, 10)
        XCTAssertEqual(step.log, ["connection reset; retrying in 1s"])
    }

    func test_R53_maxTriesWithoutDataFails() throws {
        var tired = running()
        tired.failuresWithoutData = 2
        let step = try apply(.finished(serial: 5, outcome: .failed(.connectionReset, ranges: .prefix(0), receivedData: false)), tired)
        XCTAssertEqual(step.task.state, .failed)
        XCTAssertEqual(step.effects, [.wake("failed: connection reset\n"), .failReads])
        XCTAssertEqual(step.daemonLog, ["task 7 failed: connection reset"])
    }

    func test_R53_dataResetsTheTries() throws {
        var tired = running()
        tired.failuresWithoutData = 2
        let step = try apply(.finished(serial: 5, outcome: .failed(.connectionReset, ranges: .prefix(9), receivedData: true)), tired)
        XCTAssertEqual(step.task.state, .retrying)
        XCTAssertEqual(step.task.failuresWithoutData, 0)
    }

    func test_R54_writeErrorsFailWithAHint() throws {
        let full = try apply(.finished(serial: 5, outcome: .failed(.writeError(errno: 28, message: "No space left on device"),
                                                                   ranges: .prefix(4), receivedData: true)), running())
        XCTAssertEqual(full.task.state, .failed)
        XCTAssertEqual(full.task.error, "No space left on device; free some space, then write resume to ctl")
        let eio = try apply(.finished(serial: 5, outcome: .failed(.writeError(errno: 5, message: "Input/output error"),
                                                                  ranges: .prefix(4), receivedData: true)), running())
        XCTAssertEqual(eio.task.error, "Input/output error; check the disk, then write resume to ctl")
        XCTAssertEqual(eio.task.downloaded, 4)
    }

    /// C.md #2: out of descriptors is no disk error: the task retries, and
    /// only after max-tries fails, with a hint that fits.
    func test_R53_outOfDescriptorsRetriesWithoutADiskHint() throws {
        let emfile = TransferFailure.writeError(errno: 24, message: "Too many open files")
        let first = try apply(.finished(serial: 5, outcome: .failed(emfile, ranges: .prefix(4), receivedData: false)),
                              running())
        XCTAssertEqual(first.task.state, .retrying)
        XCTAssertEqual(first.task.error, "too many files open in downloadfs (each file open in files/ holds one until closed)")
        var tired = running()
        tired.failuresWithoutData = 2  // the machine's max-tries is 3
        let last = try apply(.finished(serial: 5, outcome: .failed(emfile, ranges: .prefix(4), receivedData: false)), tired)
        XCTAssertEqual(last.task.state, .failed)
        XCTAssertEqual(last.task.error, "too many files open in downloadfs (each file open in files/ holds one until closed)"
            + "; close files open in files/, then write resume to ctl")
    }

    func test_R53_unusableAnswerBacksOffThenFails() throws {
        let first = try apply(.finished(serial: 5, outcome: .restart(reason: "206 without a usable Content-Range")),
                              running(downloaded: 30))
        XCTAssertEqual(first.task.state, .retrying)
        XCTAssertEqual(first.task.downloaded, 0)
        XCTAssertEqual(first.task.failuresWithoutData, 1)
        XCTAssertEqual(first.effects, [.deletePartial])
        XCTAssertNotNil(first.task.retryAt)
        var last = running()
        last.failuresWithoutData = 2
        let failed = try apply(.finished(serial: 5, outcome: .restart(reason: "odd")), last)
        XCTAssertEqual(failed.task.state, .failed)
        XCTAssertTrue(failed.task.error!.contains("after 3 tries"), failed.task.error!)
    }

    func test_R30_aFailureDuringAPauseStillPauses() throws {
        let pausing = try apply(.pause(log: "paused"), running()).task
        let step = try apply(.finished(serial: 5, outcome: .failed(.connectionReset, ranges: .prefix(3), receivedData: true)), pausing)
        XCTAssertEqual(step.task.state, .paused)
        XCTAssertEqual(step.task.downloaded, 3)
    }

    func test_R43_completedDownloadIsMovedThenShown() throws {
        let done = try apply(.finished(serial: 5, outcome: .completed(bytes: 100, total: nil)), running())
        XCTAssertEqual(done.task.state, .downloading, "not shown completed before it is in files/")
        XCTAssertEqual(done.task.total, 100)
        XCTAssertEqual(done.effects, [.finalize(serial: 5, name: "file.iso")])
        let moved = try apply(.finalized(serial: 5, result: .moved(name: "file (1).iso", at: landedAt)), done.task)
        XCTAssertEqual(moved.task.state, .completed)
        XCTAssertEqual(moved.task.name, "file (1).iso")
        XCTAssertEqual(moved.task.completedAt, landedAt, "completed when the file landed, as its mtime says")
        XCTAssertEqual(moved.effects, [.wake("completed\n"), .releaseReads, .runHook])
        let failed = try apply(.finalized(serial: 5, result: .failed("Permission denied")), done.task)
        XCTAssertEqual(failed.task.state, .failed)
        XCTAssertEqual(failed.task.error, "could not move the finished file: Permission denied")
    }

    /// Every byte in: the task is `verifying` (out of its slot, R16) while
    /// its file waits for its group's flush; shown `completed` only after
    /// the flush and the move (R51, R43).
    func test_R51_wholeFileWaitsForItsFlushOutOfItsSlot() throws {
        let syncing = try apply(.syncing(serial: 5), running())
        XCTAssertEqual(syncing.task.state, .verifying)
        XCTAssertEqual(syncing.task.phase, .syncing)
        XCTAssertFalse(syncing.task.state.holdsSlot)
        XCTAssertTrue(syncing.task.transferring, "the flush is still the attempt's: its report is awaited")
        XCTAssertEqual(syncing.effects, [])
        let flushed = try apply(.finished(serial: 5, outcome: .completed(bytes: 100, total: 100)), syncing.task)
        XCTAssertEqual(flushed.task.state, .verifying)
        XCTAssertEqual(flushed.task.phase, .movingIn)
        XCTAssertEqual(flushed.effects, [.finalize(serial: 5, name: "file.iso")])
        XCTAssertEqual(try apply(.finalized(serial: 5, result: .moved(name: "file.iso", at: landedAt)), flushed.task).task.state, .completed)
    }

    /// R51, R54: the group's flush failed for this file: the task fails with
    /// the count of its last good checkpoint, the others are not touched
    /// (each gets its own report).
    func test_R51_failedGroupFlushFailsTheTaskAtItsLastCheckpoint() throws {
        var syncing = try apply(.syncing(serial: 5), running()).task
        syncing.ranges = .prefix(3 << 20)
        let step = try apply(.finished(serial: 5, outcome: .failed(.writeError(errno: 5, message: "Input/output error"),
                                                                   ranges: .prefix(3 << 20), receivedData: false)), syncing)
        XCTAssertEqual(step.task.state, .failed)
        XCTAssertEqual(step.task.downloaded, 3 << 20)
        XCTAssertEqual(step.task.error, "Input/output error; check the disk, then write resume to ctl")
    }

    func test_R56_checksumOfAFlushedFile() throws {
        let sum = Checksum(algorithm: .sha256, hex: String(repeating: "a", count: 64))
        let syncing = try apply(.syncing(serial: 5), running(checksum: sum)).task
        let done = try apply(.finished(serial: 5, outcome: .completed(bytes: 100, total: 100)), syncing)
        XCTAssertEqual(done.task.state, .verifying)
        XCTAssertEqual(done.log, ["verifying sha-256"])
        XCTAssertEqual(done.effects, [.verify(serial: 5, checksum: sum)])
    }

    func test_R56_checksumIsVerifiedBeforeTheMove() throws {
        let sum = Checksum(algorithm: .sha256, hex: String(repeating: "a", count: 64))
        let done = try apply(.finished(serial: 5, outcome: .completed(bytes: 100, total: 100)), running(checksum: sum))
        XCTAssertEqual(done.task.state, .verifying)
        XCTAssertEqual(done.effects, [.verify(serial: 5, checksum: sum)])
        XCTAssertEqual(try apply(.verified(serial: 5, result: .matched), done.task).effects,
                       [.finalize(serial: 5, name: "file.iso")])
        let bad = try apply(.verified(serial: 5, result: .mismatched(actual: "bb")), done.task)
        XCTAssertEqual(bad.task.state, .failed)
        XCTAssertEqual(bad.task.downloaded, 0)
        XCTAssertTrue(bad.task.error!.contains("got bb"))
        XCTAssertEqual(bad.effects.first, .deletePartial)
    }

    // MARK: - mount (R50)

    func test_R50_runningTasksCarryOnAfterAMount() throws {
        for state in [TaskState.downloading, .verifying, .retrying] {
            var stored = task(state, downloaded: 10)
            stored.retryAt = now
            let step = try apply(.reconcile(DataOnDisk(partialSize: 10, finishedSize: nil)), stored)
            XCTAssertEqual(step.task.state, .queued)
            XCTAssertNil(step.task.retryAt)
        }
        XCTAssertEqual(try apply(.reconcile(DataOnDisk(partialSize: 0, finishedSize: nil)), task(.paused)).task.state, .paused)
    }

    /// A server's Retry-After (R53) is waited out across a remount, not
    /// forgotten; a wait past the cap (the clock moved) is not.
    func test_R50_R53_aRetryingTasksBackOffGoesOnAfterAMount() throws {
        var stored = task(.retrying, downloaded: 10)
        stored.retryAt = now.addingTimeInterval(30)
        let step = try apply(.reconcile(DataOnDisk(partialSize: 10, finishedSize: nil)), stored)
        XCTAssertEqual(step.task.state, .retrying)
        XCTAssertEqual(step.task.retryAt, now.addingTimeInterval(30))
        stored.retryAt = now.addingTimeInterval(RetryPolicy.retryAfterCapSeconds + 60)
        XCTAssertEqual(try apply(.reconcile(DataOnDisk(partialSize: 10, finishedSize: nil)), stored).task.state, .queued)
    }

    func test_R51_shortPartialDataLowersTheCount() throws {
        let step = try apply(.reconcile(DataOnDisk(partialSize: 6, finishedSize: nil)), task(.queued, downloaded: 10))
        XCTAssertEqual(step.task.downloaded, 6)
        let missing = try apply(.reconcile(DataOnDisk(partialSize: nil, finishedSize: nil)), task(.queued, downloaded: 10))
        XCTAssertEqual(missing.task.downloaded, 0)
        XCTAssertEqual(missing.log, ["partial data is missing; starting over"])
    }

    func test_R50_crashBetweenMoveAndCommitIsCompleted() throws {
        var moved = task(.downloading, downloaded: 90)
        moved.total = 100
        let step = try apply(.reconcile(DataOnDisk(partialSize: nil, finishedSize: 100)), moved)
        XCTAssertEqual(step.task.state, .completed)
        XCTAssertEqual(step.task.downloaded, 100)
    }

    func test_R42_vanishedFinishedFileFails() throws {
        let step = try apply(.reconcile(DataOnDisk(partialSize: nil, finishedSize: nil)), task(.completed, downloaded: 5))
        XCTAssertEqual(step.task.state, .failed)
        XCTAssertEqual(step.task.downloaded, 0)
        let kept = try apply(.reconcile(DataOnDisk(partialSize: nil, finishedSize: 5)), task(.completed, downloaded: 5))
        XCTAssertEqual(kept.task.state, .completed)
    }
}
