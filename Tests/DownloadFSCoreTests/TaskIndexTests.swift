import Foundation
import TestSupport
import XCTest
@testable import DownloadFSCore

/// `TaskIndex`: every index (names R17, URLs R13, scheduling sets R16) stays in
/// step with the tasks through `put` and `remove`.
final class TaskIndexTests: XCTestCase {
    private let added = Date(timeIntervalSince1970: 1_800_000_000)

    private func task(_ id: Int64, name: String? = nil, url: String? = nil, state: TaskState = .queued) -> DownloadTask {
        let url = url ?? "https://example.org/\(id)"
        var task = DownloadTask(url: url, normalizedURL: url, options: TaskOptions(), name: name ?? "file-\(id)",
                                addedAt: added, position: id)
        task.id = id
        task.state = state
        return task
    }

    /// The ids of the scheduling sets, to compare in one assertion.
    private func sets(_ index: TaskIndex) -> [Set<Int64>] {
        [index.queued, index.running, index.retrying]
    }

    func test_putIndexesTheNameTheURLAndTheState() {
        var index = TaskIndex()
        index.put(task(1, name: "a.iso", url: "https://h/a.iso"))
        XCTAssertEqual(index.count, 1)
        XCTAssertEqual(index[1]?.name, "a.iso")
        XCTAssertEqual(index.task(named: "a.iso")?.id, 1)
        XCTAssertTrue(index.isNameTaken("a.iso"))
        XCTAssertFalse(index.isNameTaken("b.iso"))
        XCTAssertEqual(index.id(forURL: "https://h/a.iso"), 1)
        XCTAssertNil(index.id(forURL: "https://h/b.iso"))
        XCTAssertEqual(sets(index), [[1], [], []])
    }

    func test_R16_eachStateLandsInItsSchedulingSet() {
        let expected: [TaskState: [Set<Int64>]] = [
            .queued: [[1], [], []], .downloading: [[], [1], []], .verifying: [[], [], []],
            .retrying: [[], [], [1]], .paused: [[], [], []], .completed: [[], [], []], .failed: [[], [], []],
        ]
        for state in TaskState.allCases {
            var index = TaskIndex()
            index.put(task(1, state: state))
            XCTAssertEqual(sets(index), expected[state], "\(state)")
            // A verifying task has every byte: it holds no slot (R16) and
            // takes no part in scheduling or limits.
            XCTAssertEqual(index.inFlight.map(\.id), state.isInFlight && state != .verifying ? [1] : [], "\(state)")
        }
    }

    func test_replacingMovesTheTaskFromSetToSet() {
        var index = TaskIndex()
        let path: [(TaskState, [Set<Int64>])] = [
            (.queued, [[7], [], []]), (.downloading, [[], [7], []]), (.retrying, [[], [], [7]]),
            (.downloading, [[], [7], []]), (.verifying, [[], [], []]), (.queued, [[7], [], []]),
            (.paused, [[], [], []]), (.queued, [[7], [], []]), (.failed, [[], [], []]), (.completed, [[], [], []]),
        ]
        for (state, expected) in path {
            index.put(task(7, state: state))
            XCTAssertEqual(sets(index), expected, "after \(state)")
            XCTAssertEqual(index.count, 1, "after \(state)")
        }
    }

    func test_R13_aFailedTaskIsNotFoundByItsURL() {
        var index = TaskIndex()
        index.put(task(1, url: "https://h/x", state: .failed))
        XCTAssertNil(index.id(forURL: "https://h/x"))
        XCTAssertEqual(index.task(named: "file-1")?.id, 1, "a failed task keeps its name")
    }

    func test_R13_failingFreesTheURLAndResumingTakesItBack() {
        var index = TaskIndex()
        index.put(task(1, url: "https://h/x", state: .downloading))
        XCTAssertEqual(index.id(forURL: "https://h/x"), 1)
        index.put(task(1, url: "https://h/x", state: .failed))
        XCTAssertNil(index.id(forURL: "https://h/x"))
        index.put(task(1, url: "https://h/x", state: .queued))
        XCTAssertEqual(index.id(forURL: "https://h/x"), 1)
    }

    func test_R13_removingAFailedTaskKeepsTheURLOfTheTaskAddedAfterIt() {
        var index = TaskIndex()
        index.put(task(1, url: "https://h/x", state: .failed))
        index.put(task(2, url: "https://h/x", state: .queued))
        XCTAssertEqual(index.id(forURL: "https://h/x"), 2)
        index.remove(1)
        XCTAssertEqual(index.id(forURL: "https://h/x"), 2)
        index.put(task(1, url: "https://h/x", state: .failed))
        XCTAssertEqual(index.id(forURL: "https://h/x"), 2, "putting the failed task back does not take the URL")
    }

    /// `resume` of a failed task is allowed while a task added after it has
    /// the same URL (R13 only dedupes adding), so two tasks not failed can
    /// share a URL. Cancelling one must leave the other found by that URL,
    /// or the next `add` of it downloads the URL a second time (R13).
    func test_R13_theURLStaysFoundWhileAnyTaskNotFailedHasIt() {
        var index = TaskIndex()
        index.put(task(1, url: "https://h/x", state: .failed))
        index.put(task(2, url: "https://h/x", state: .queued))
        index.put(task(1, url: "https://h/x", state: .queued))  // resume
        index.remove(1)  // cancel
        XCTAssertEqual(index.id(forURL: "https://h/x"), 2, "task 2 is queued with this URL")
    }

    // MARK: R19 mirrors: every URL of a task finds it

    private func task(_ id: Int64, urls: [String], state: TaskState = .queued) -> DownloadTask {
        var made = task(id, url: urls[0], state: state)
        made.options.mirrors = Array(urls.dropFirst())
        return made
    }

    func test_R19_R13_everyURLOfATaskFindsItNormalised() {
        var index = TaskIndex()
        index.put(task(1, urls: ["https://h/x", "HTTP://Mirror.example:80/x#top", "ftp://m2/x"]))
        XCTAssertEqual(index.id(forURL: "https://h/x"), 1)
        XCTAssertEqual(index.id(forURL: "http://mirror.example/x"), 1, "a mirror is indexed normalised")
        XCTAssertEqual(index.id(forURL: "ftp://m2/x"), 1)
        XCTAssertNil(index.id(forURL: "https://h/y"))
    }

    func test_R19_R13_aDroppedMirrorStillFindsItsTask() {
        var index = TaskIndex()
        var dropped = task(1, urls: ["https://h/x", "https://m/x"], state: .downloading)
        index.put(dropped)
        dropped.droppedMirrors = ["https://m/x"]
        index.put(dropped)
        XCTAssertEqual(index.id(forURL: "https://m/x"), 1, "adding any one of a task's URLs answers it")
    }

    func test_R19_R13_failingFreesEveryURLAndResumingTakesThemBack() {
        var index = TaskIndex()
        let urls = ["https://h/x", "https://m/x"]
        index.put(task(1, urls: urls, state: .downloading))
        index.put(task(1, urls: urls, state: .failed))
        XCTAssertNil(index.id(forURL: "https://h/x"))
        XCTAssertNil(index.id(forURL: "https://m/x"))
        index.put(task(1, urls: urls, state: .queued))
        XCTAssertEqual(index.id(forURL: "https://m/x"), 1)
        index.remove(1)
        XCTAssertNil(index.id(forURL: "https://h/x"))
        XCTAssertNil(index.id(forURL: "https://m/x"))
    }

    func test_R19_R13_aLineMatchingSeveralTasksAnswersItsEarliestURLsTask() {
        var index = TaskIndex()
        index.put(task(1, urls: ["https://a/x", "https://b/x"]))
        index.put(task(2, url: "https://c/x"))
        XCTAssertEqual(index.id(forAnyOf: ["https://c/x", "https://b/x"]), 2)
        XCTAssertEqual(index.id(forAnyOf: ["https://z/x", "https://b/x", "https://c/x"]), 1)
        XCTAssertNil(index.id(forAnyOf: ["https://z/x", "https://y/x"]))
        XCTAssertNil(index.id(forAnyOf: []))
    }

    /// A mirror shared with another task (one failed, added again, then
    /// resumed): cancelling one leaves the other found by it.
    func test_R19_R13_aSharedMirrorStaysFoundWhileAnyTaskNotFailedHasIt() {
        var index = TaskIndex()
        index.put(task(1, urls: ["https://a/x", "https://m/x"], state: .failed))
        index.put(task(2, urls: ["https://b/x", "https://m/x"]))
        index.put(task(1, urls: ["https://a/x", "https://m/x"]))  // resume
        XCTAssertEqual(index.id(forURL: "https://m/x"), 1, "the oldest")
        index.remove(1)
        XCTAssertEqual(index.id(forURL: "https://m/x"), 2)
        XCTAssertNil(index.id(forURL: "https://a/x"))
    }

    func test_R17_renameFreesTheOldName() {
        var index = TaskIndex()
        index.put(task(1, name: "old.iso"))
        index.put(task(1, name: "new.iso"))
        XCTAssertFalse(index.isNameTaken("old.iso"))
        XCTAssertNil(index.task(named: "old.iso"))
        XCTAssertEqual(index.task(named: "new.iso")?.id, 1)
        XCTAssertEqual(index.count, 1)
        index.put(task(2, name: "old.iso"))
        XCTAssertEqual(index.task(named: "old.iso")?.id, 2, "the freed name can be reserved again")
        XCTAssertEqual(index.task(named: "new.iso")?.id, 1)
    }

    func test_removeForgetsEveryIndexEntry() {
        var index = TaskIndex()
        index.put(task(1, name: "a", url: "https://h/a", state: .downloading))
        index.put(task(2, name: "b", url: "https://h/b", state: .retrying))
        index.remove(1)
        XCTAssertNil(index[1])
        XCTAssertFalse(index.isNameTaken("a"))
        XCTAssertNil(index.id(forURL: "https://h/a"))
        XCTAssertEqual(sets(index), [[], [], [2]])
        XCTAssertEqual(index.sortedIDs, [2])
        index.remove(1)
        index.remove(99)
        XCTAssertEqual(index.sortedIDs, [2], "removing an unknown id changes nothing")
        XCTAssertEqual(index.task(named: "b")?.id, 2)
    }

    func test_sortedIDsAreLowestFirst() {
        var index = TaskIndex()
        for id: Int64 in [5, 1, 9, 3] { index.put(task(id)) }
        XCTAssertEqual(index.sortedIDs, [1, 3, 5, 9])
    }

    /// Random puts (new tasks, renames, moves, state changes) and removes,
    /// within the callers' invariants (names unique among tasks, R17; one task
    /// not failed per URL, R13), each step checked against a brute-force scan.
    func test_randomPutsAndRemovesAgreeWithAScanOfEveryTask() {
        var random = SeededGenerator.fromEnvironment()
        let names = (0..<60).map { "name-\($0)" }
        let urls = (0..<20).map { "https://h/\($0)" }
        let ids = Array(Int64(1)...45)
        var index = TaskIndex()
        var model: [Int64: DownloadTask] = [:]
        for step in 0..<5_000 {
            let id = Int64.random(in: 1...40, using: &random)
            if Int.random(in: 0..<10, using: &random) < 6 {
                let old = model[id]
                var next = old ?? task(id)
                if old == nil || Int.random(in: 0..<10, using: &random) < 7 {
                    let free = names.filter { name in !model.values.contains { $0.name == name && $0.id != id } }
                    if let name = free.randomElement(using: &random) { next.name = name }
                }
                if old == nil || Bool.random(using: &random) {
                    next.normalizedURL = urls.randomElement(using: &random)!
                    next.url = next.normalizedURL
                    // Some tasks have mirrors (R19): every URL of theirs is indexed.
                    let mirrors = (0..<Int.random(in: 0...2, using: &random)).map { _ in urls.randomElement(using: &random)! }
                    next.options.mirrors = mirrors.isEmpty ? nil : mirrors
                }
                next.state = TaskState.allCases.randomElement(using: &random)!
                // Few distinct positions, so ties are common (top moves a task, R30).
                if Bool.random(using: &random) { next.position = Int64.random(in: -4...4, using: &random) }
                let urlHeld = model.values.contains {
                    $0.id != id && !Set($0.normalizedURLs).isDisjoint(with: next.normalizedURLs) && $0.state != .failed
                }
                if urlHeld { next.state = .failed }
                // A name already held by another task is kept only if nothing else was free.
                guard !model.values.contains(where: { $0.name == next.name && $0.id != id }) else { continue }
                index.put(next)
                model[id] = next
            } else {
                let gone = Int64.random(in: 1...45, using: &random)
                index.remove(gone)
                model[gone] = nil
            }
            var wrong: [String] = []
            if index.sortedIDs != model.keys.sorted() { wrong.append("ids \(index.sortedIDs) != \(model.keys.sorted())") }
            if index.count != model.count { wrong.append("count \(index.count) != \(model.count)") }
            for id in ids where index[id] != model[id] { wrong.append("task \(id)") }
            let snapshot = index.snapshot
            for name in names {
                let expected = model.values.first { $0.name == name }?.id
                if index.task(named: name)?.id != expected { wrong.append("task(named: \(name)) != \(String(describing: expected))") }
                if index.isNameTaken(name) != (expected != nil) { wrong.append("isNameTaken(\(name))") }
                let completed = model.values.first { $0.name == name && $0.state == .completed }?.id
                if snapshot.completed(named: name)?.id != completed {
                    wrong.append("completed(named: \(name)) != \(String(describing: completed))")
                }
            }
            for url in urls {
                let expected = model.values.first { $0.normalizedURLs.contains(url) && $0.state != .failed }?.id
                if index.id(forURL: url) != expected { wrong.append("id(forURL: \(url)) != \(String(describing: expected))") }
            }
            func idsWhere(_ include: (TaskState) -> Bool) -> Set<Int64> { Set(model.values.filter { include($0.state) }.map(\.taskID)) }
            if index.queued != idsWhere({ $0 == .queued }) { wrong.append("queued") }
            if index.running != idsWhere(\.holdsSlot) { wrong.append("running") }
            if index.retrying != idsWhere({ $0 == .retrying }) { wrong.append("retrying") }
            if Set(index.inFlight.map(\.taskID)) != idsWhere({ $0.isInFlight && $0 != .verifying }) { wrong.append("inFlight") }
            if index.inFlight.count != Set(index.inFlight.map(\.taskID)).count { wrong.append("inFlight has duplicates") }
            let count = Int.random(in: 0...12, using: &random)
            let line = model.values.filter { $0.state == .queued }.sorted { ($0.position, $0.taskID) < ($1.position, $1.taskID) }
            let expected = line.prefix(count).map { SchedulableTask(id: $0.taskID, state: .queued, position: $0.position) }
            let got = index.firstInLine(count)
            if got != expected { wrong.append("firstInLine(\(count)) \(got.map(\.id)) != \(expected.map(\.id))") }
            guard wrong.isEmpty else {
                XCTFail("step \(step), \(random): \(wrong.joined(separator: "; "))")
                return
            }
        }
    }

    // MARK: the waiting line (R16, R30)

    func test_R16_firstInLineBreaksTiesByID() {
        var index = TaskIndex()
        for id in [Int64(9), 4, 7, 1, 8] {
            var t = task(id)
            t.position = 3
            index.put(t)
        }
        XCTAssertEqual(index.firstInLine(3).map(\.id), [1, 4, 7])
        XCTAssertEqual(index.firstInLine(10).map(\.id), [1, 4, 7, 8, 9])
        XCTAssertEqual(index.firstInLine(0), [])
        XCTAssertEqual(index.firstInLine(-3), [])
    }

    func test_R30_firstInLineHonoursExtremePositions() {
        var index = TaskIndex()
        for (id, position) in [(Int64(1), Int64.max), (2, 0), (3, .min), (4, .min)] {
            var t = task(id)
            t.position = position
            index.put(t)
        }
        XCTAssertEqual(index.firstInLine(3).map(\.id), [3, 4, 2])
    }

    /// A task leaving and re-entering the line many times leaves no pile of
    /// stale entries behind (100,000 tasks would otherwise grow the heap).
    func test_R16_staleEntriesAreSweptOut() {
        var index = TaskIndex()
        for id in Int64(1)...10 { index.put(task(id)) }
        for round in 0..<20_000 {
            var t = task(Int64(round % 10 + 1))
            t.position = Int64(round)
            index.put(t)
        }
        XCTAssertLessThanOrEqual(index.waitingEntries, 2 * 10 + 1024 + 1)
        XCTAssertEqual(index.firstInLine(10).count, 10)
    }

    /// The snapshot FUSE threads read: tasks by id and completed ones by
    /// name, as they were when it was taken, whatever the index does after.
    func test_aSnapshotKeepsWhatItWasGiven() {
        var index = TaskIndex()
        index.put(task(1))
        var done = task(2, name: "two.bin")
        done.state = .completed
        index.put(done)
        let snapshot = index.snapshot
        index.put(task(3, name: "three"))
        var renamed = task(2, name: "renamed.bin")
        renamed.state = .completed
        index.put(renamed)
        index.remove(1)
        XCTAssertEqual(snapshot.tasks.keys, [1, 2])
        XCTAssertEqual(snapshot.completed(named: "two.bin")?.id, 2)
        XCTAssertNil(snapshot.completed(named: "renamed.bin"))
        XCTAssertNil(snapshot.completed(named: "file-1"), "only completed tasks are found by name")
        XCTAssertEqual(index.snapshot.tasks.keys, [2, 3])
        XCTAssertEqual(index.snapshot.completed(named: "renamed.bin")?.id, 2)
        XCTAssertNil(index.snapshot.completed(named: "two.bin"))
    }

    /// Chunks are shared between copies and copied only when changed.
    func test_chunkedMapCopiesOnlyWhatChanges() {
        var map = ChunkedMap<Int64, Int>()
        for id in Int64(1)...2000 { map.updateValue(Int(id), forKey: id) }
        let copy = map
        map.updateValue(-1, forKey: 700)
        map.removeValue(forKey: 1500)
        map.updateValue(9, forKey: 5000)
        XCTAssertEqual(copy[700], 700)
        XCTAssertEqual(copy[1500], 1500)
        XCTAssertNil(copy[5000])
        XCTAssertEqual(copy.count, 2000)
        XCTAssertEqual(map[700], -1)
        XCTAssertNil(map[1500])
        XCTAssertEqual(map.count, 2000)
        XCTAssertEqual(map.keys, Array(1...1499) + Array(1501...2000) + [5000])
        let (first, next) = map.entries(from: 255, limit: 3)
        XCTAssertEqual(first.map(\.key), [255, 256, 257])
        XCTAssertEqual(next, 258)
        XCTAssertEqual(map.entries(from: 4999, limit: 10).entries.map(\.key), [5000])
        XCTAssertNil(map.entries(from: 4999, limit: 10).next)
    }
}
