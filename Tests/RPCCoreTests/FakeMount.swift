import DownloadFSCore
import Foundation
import RPCCore
import Synchronization

/// An in-memory mount for the dispatcher's tests: tasks kept as the core's
/// `TaskStatusView`s and shown through the core's own renderers
/// (`StatusRenderer`, `StatusTable`) and parsers (`InputParser`,
/// `ControlCommand`), so every text the dispatcher reads has the real
/// shape and every text it writes is judged as the mount judges it.
/// Every change is recorded in `writes`, so a test sees that an error
/// changed nothing.
final class FakeMount: MountView, Sendable {
    struct Task {
        var view: TaskStatusView
        var mirrors: [String] = []
        var dropped: [String] = []
        /// What `user.downloadfs.ranges` gives; nil: the downloaded bytes as a prefix, as the daemon holds them unsplit.
        var held: ByteRanges?
        var limit: Int64 = 0
        var split: Int?
        var headers: [String] = []
        /// What `place` answers (the fake keeps no waiting line).
        var place: Int?
    }

    struct State {
        var tasks: [Int64: Task] = [:]
        var nextID: Int64 = 1
        var maxActive = 3
        var limit: Int64 = 0
        var split = 4
        /// Every write the mount took, in order: `add URL…`, `ctl 3 pause`, `global pause-all`, `rm 3`.
        var writes: [String] = []
        var tableLinesRead = 0
        /// Reads of anything but one task: `ctl`s and the table.
        var otherReads = 0
        var rangesRead: [Int64] = []
        /// What `waitingLine` answers; nil: as a mount without the attribute.
        var line: (ids: [Int64], more: Int)?
    }

    let path = "/home/u/dl"
    static let added = Date(timeIntervalSince1970: 1_795_000_000)
    private let state = Mutex(State())

    var writes: [String] { state.withLock { $0.writes } }

    func task(_ id: Int64) -> Task? { state.withLock { $0.tasks[id] } }

    /// Adds a task directly (not through `queue/new`), in `state`.
    @discardableResult
    func put(_ url: String, state taskState: TaskState = .queued, name: String? = nil,
             change: (inout Task) -> Void = { _ in }) -> Int64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            var task = Task(view: TaskStatusView(id: id, name: name ?? URL(string: url)?.lastPathComponent,
                                                 url: URLNormalizer.maskingPassword(url), state: taskState,
                                                 added: Self.added))
            change(&task)
            state.tasks[id] = task
            return id
        }
    }

    func change(_ id: Int64, _ body: (inout Task) -> Void) {
        state.withLock { state in body(&state.tasks[id]!) }
    }

    private static func refused(_ message: String) -> MountViewError { MountViewError(code: 22, message: message) }
    private static let gone = MountViewError(code: 2, message: "No such file or directory")

    func add(_ input: String) throws(MountViewError) -> [Int64] {
        var parser = InputParser()
        let entries: [InputEntry]
        do {
            entries = try parser.feed(Array(input.utf8)) + parser.finish()
        } catch {
            throw Self.refused(error.message)
        }
        return state.withLock { state in
            state.writes.append("add " + entries.map(\.url).joined(separator: " "))
            return entries.map { entry in
                let id = state.nextID
                state.nextID += 1
                let name = entry.options.out ?? URL(string: entry.url)?.lastPathComponent ?? "download"
                state.tasks[id] = Task(
                    view: TaskStatusView(id: id, name: name, folder: entry.options.folder,
                                         url: URLNormalizer.maskingPassword(entry.url), state: .queued, added: Self.added),
                    mirrors: entry.mirrors.map(URLNormalizer.maskingPassword),
                    limit: entry.options.maxDownloadLimit ?? 0, split: entry.options.split,
                    headers: entry.options.headers)
                return id
            }
        }
    }

    func control(_ id: Int64, _ command: String) throws(MountViewError) {
        let parsed: ControlCommand
        switch ControlCommand.parseTask(command) {
        case .success(let command): parsed = command
        case .failure(let refusal): throw Self.refused(refusal.message)
        }
        try state.withLock { (state: inout State) throws(MountViewError) in
            guard var task = state.tasks[id] else { throw Self.gone }
            switch parsed {
            case .pause:
                guard !task.view.state.isFinished else { throw Self.refused("task \(id) has ended") }
                task.view.state = .paused
            case .resume:
                guard task.view.state == .paused || task.view.state == .failed else {
                    throw Self.refused("task \(id) is not paused")
                }
                task.view.state = .queued
            case .forget:
                guard task.view.state == .completed else { throw Self.refused("task \(id) is not completed") }
                state.tasks[id] = nil
                state.writes.append("ctl \(id) \(command)")
                return
            case .move, .top, .start: break
            case .limit(let rate): task.limit = rate
            case .split(let n): task.split = n
            default: throw Self.refused("not a task command")
            }
            state.tasks[id] = task
            state.writes.append("ctl \(id) \(command)")
        }
    }

    func controlGlobal(_ command: String) throws(MountViewError) {
        let parsed: ControlCommand
        switch ControlCommand.parseGlobal(command) {
        case .success(let command): parsed = command
        case .failure(let refusal): throw Self.refused(refusal.message)
        }
        state.withLock { state in
            switch parsed {
            case .pauseAll:
                for (id, task) in state.tasks where task.view.state.isInFlight { state.tasks[id]!.view.state = .paused }
            case .resumeAll:
                for (id, task) in state.tasks where task.view.state == .paused { state.tasks[id]!.view.state = .queued }
            case .forgetCompleted:
                state.tasks = state.tasks.filter { $0.value.view.state != .completed }
            case .maxActive(let n): state.maxActive = n
            case .globalLimit(let rate): state.limit = rate
            case .globalSplit(let n): state.split = n
            default: break
            }
            state.writes.append("global \(command)")
        }
    }

    func remove(_ id: Int64) throws(MountViewError) {
        try state.withLock { (state: inout State) throws(MountViewError) in
            guard state.tasks.removeValue(forKey: id) != nil else { throw Self.gone }
            state.writes.append("rm \(id)")
        }
    }

    /// Reads of the ranges, so a test sees when the dispatcher asks.
    var rangesRead: [Int64] { state.withLock { $0.rangesRead } }

    func task(_ id: Int64, mirrors: Bool, ranges: Bool) throws(MountViewError) -> MountedTask? {
        state.withLock { state in
            guard let task = state.tasks[id] else { return nil }
            if ranges { state.rangesRead.append(id) }
            return MountedTask(status: StatusRenderer.render(task.view, now: Self.added),
                               mirrors: mirrors ? task.mirrors.filter { !task.dropped.contains($0) } : [],
                               ranges: ranges ? task.held ?? .prefix(task.view.downloaded) : nil)
        }
    }

    /// Reads of `ctl`s and the table, so a test sees a call that reads only tasks.
    var otherReads: Int { state.withLock { $0.otherReads } }

    func place(_ id: Int64) throws(MountViewError) -> Int? {
        state.withLock { state in
            state.otherReads += 1
            return state.tasks[id]?.place
        }
    }

    /// Sets what `waitingLine` answers.
    func setLine(_ ids: [Int64], more: Int = 0) { state.withLock { $0.line = (ids, more) } }

    func waitingLine() throws(MountViewError) -> (ids: [Int64], more: Int)? {
        state.withLock { $0.line }
    }

    func settings(_ id: Int64) throws(MountViewError) -> String? {
        state.withLock { state in
            state.otherReads += 1
            return state.tasks[id].map { "limit \(ByteRate.written($0.limit))\nsplit \($0.split ?? state.split)\n" }
        }
    }

    func globalSettings() throws(MountViewError) -> String {
        state.withLock {
            $0.otherReads += 1
            return "max-active \($0.maxActive)\nlimit \(ByteRate.written($0.limit))\nsplit \($0.split)\n"
        }
    }

    func table() throws(MountViewError) -> String {
        let views = state.withLock { state in
            state.otherReads += 1
            return state.tasks.values.map(\.view)
        }.sorted { $0.id < $1.id }
        return StatusTable.render(views, now: Self.added)
    }

    /// How many lines `forEachTableLine` handed out, over all calls.
    var tableLinesRead: Int { state.withLock { $0.tableLinesRead } }

    func forEachTableLine(_ body: (Substring) -> Bool) throws(MountViewError) {
        for line in try table().split(separator: "\n") {
            state.withLock { $0.tableLinesRead += 1 }
            guard body(line) else { return }
        }
    }
}
