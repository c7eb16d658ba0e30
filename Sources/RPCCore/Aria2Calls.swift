import DownloadFSCore
import Foundation

/// What each aria2 method does to the mount (R72), once the call is
/// authorised and its parameters are known; `Aria2Dispatcher` does the
/// JSON-RPC around it (envelopes, batches, the token, `system.*`).
///
/// Every call goes through the mount's files (`MountView`). Lists come from
/// `MOUNT/status` (R21), which is in id order, but for `tellWaiting`,
/// which lists waiting tasks in the order they will start, as aria2c does,
/// from `queue/`'s `user.downloadfs.line` (`MountView.waitingLine`);
/// `changePosition`'s `POS_CUR` counts from the task's own place in the
/// line, which its directory tells (`MountView.place`);
/// `tellStopped` lists the mount's completed and failed tasks by id, then
/// the ones this server removed, oldest first (aria2c lists results in the
/// order they stopped).
struct Aria2Calls: Sendable {
    let mount: any MountView
    let version: String
    let sessionID: String
    let removed: RemovedResults
    let onShutdown: @Sendable (_ force: Bool) -> Void

    /// The features `getVersion` names, in aria2's words, that downloadfs has.
    static let enabledFeatures = ["HTTPS", "Message Digest"]

    func perform(_ method: Aria2Method, _ params: Aria2Params) throws(Aria2Error) -> JSONValue {
        switch method {
        case .addUri: return try addUri(params)
        case .addTorrent, .getPeers: throw .failure("downloadfs does not do BitTorrent (\(method.rawValue))")
        case .addMetalink: throw .failure("downloadfs does not do Metalink (\(method.rawValue))")
        case .changeUri:
            throw .failure("downloadfs does not change a task's URIs (\(method.rawValue)): remove the task and add it again with its mirrors")
        case .remove, .forceRemove: return try remove(params.gid(0))
        case .pause, .forcePause: return try pause(params.gid(0))
        case .pauseAll, .forcePauseAll:
            try controlGlobal("pause-all")
            return .string("OK")
        case .unpause: return try unpause(params.gid(0))
        case .unpauseAll:
            try controlGlobal("resume-all")
            return .string("OK")
        case .changePosition:
            return try changePosition(params.gid(0), params.integer(1), params.string(2))
        case .tellStatus:
            let keys = try params.optionalStrings(1)
            return try report(params.gid(0), mirrors: Self.wants("files", keys), ranges: Self.wants("bitfield", keys))
                .entry(keys: keys)
        case .getUris: return try report(params.gid(0), mirrors: true).uriList
        case .getFiles: return try report(params.gid(0), mirrors: true).files
        case .getServers:
            let id = try params.gid(0)
            let task = try report(id, mirrors: true)
            guard task.state == .active else { throw .failure("No active download for GID#\(Aria2GID.text(id))") }
            return task.servers
        case .tellActive:
            let keys = try params.optionalStrings(0)
            return try list(rows { Aria2State($0) == .active }, keys: keys)
        case .tellWaiting:
            let window = ResultWindow(offset: try params.integer(0), num: try params.count(1))
            let keys = try params.optionalStrings(2)
            return try list(window.slice(waiting(atMost: window.itemsNeeded)), keys: keys)
        case .tellStopped:
            let window = ResultWindow(offset: try params.integer(0), num: try params.count(1))
            let keys = try params.optionalStrings(2)
            return try stopped(window, keys: keys)
        case .getOption: return try option(params.gid(0))
        case .changeOption:
            let id = try params.gid(0)
            let commands = try Aria2Options.taskCommands(try params.requiredOptions(1))
            // aria2c changes options of active and waiting downloads only.
            guard !(try report(id, mirrors: false)).state.isStopped else {
                throw .failure("Cannot change option for GID#\(Aria2GID.text(id))")
            }
            for command in commands { try control(id, command) }
            return .string("OK")
        case .getGlobalOption: return try globalOption()
        case .changeGlobalOption:
            let commands = try Aria2Options.globalCommands(try params.requiredOptions(0), mount: mount.path)
            for command in commands { try controlGlobal(command) }
            return .string("OK")
        case .purgeDownloadResult: return try purge()
        case .removeDownloadResult: return try removeResult(params.gid(0))
        case .getVersion:
            return .object(["version": .string(version),
                            "enabledFeatures": .array(Self.enabledFeatures.map(JSONValue.string))])
        case .getSessionInfo: return .object(["sessionId": .string(sessionID)])
        case .getGlobalStat: return try globalStat()
        case .saveSession:
            // The catalog is always saved (R15): nothing to do.
            return .string("OK")
        case .shutdown, .forceShutdown:
            onShutdown(method == .forceShutdown)
            return .string("OK")
        case .multicall, .listMethods, .listNotifications:
            // `Aria2Dispatcher` answers these itself.
            throw .methodNotFound(method.rawValue)
        }
    }

    // MARK: Adding

    /// One task whose URLs are mirrors (R19); `pause=true` pauses it and
    /// `position` moves it (`move N`, R30) once added. Those two come after
    /// the task is added: should the mount refuse them (the task already
    /// started), the task stays as it is and its GID is still the answer.
    /// A URL a task already has answers that task (R13), as `queue/new`
    /// does; `pause` and `position` then apply to it.
    private func addUri(_ params: Aria2Params) throws(Aria2Error) -> JSONValue {
        let uris = try params.strings(0)
        let options = try params.options(1) ?? [:]
        let position = try params.optionalInteger(2)
        if let position, position < 0 { throw .invalidParams("The position must be 0 or more.") }
        let input = try Aria2Options.input(uris: uris, options: options, mount: mount.path)
        let ids = try io { () throws(MountViewError) in try mount.add(input.text) }
        guard ids.count == 1, let id = ids.first else {
            throw .failure("the mount answered \(ids.count) ids for one task")
        }
        if input.pause { try? mount.control(id, "pause") }
        if let position { try? mount.control(id, "move \(position)") }
        return .string(Aria2GID.text(id))
    }

    // MARK: Control

    /// `rm -r queue/<id>` (R32) of a task that has not ended, kept as
    /// `removed`. A completed task is never removed this way (its file
    /// would go with it); nor a failed one (aria2c says the same of both).
    private func remove(_ id: Int64) throws(Aria2Error) -> JSONValue {
        let task = try report(id, mirrors: true)
        guard !task.state.isStopped else { throw .failure("Active Download not found for GID#\(task.gid)") }
        // Its options as they stood, for `getOption` of the result (aria2c answers it).
        let options = try? option(id)
        try io { () throws(MountViewError) in try mount.remove(id) }
        removed.keep(task, options: options)
        return .string(task.gid)
    }

    /// `pause` (R30) of a waiting or active task; aria2c refuses a task
    /// already paused, or stopped, where the mount's `pause` changes nothing.
    private func pause(_ id: Int64) throws(Aria2Error) -> JSONValue {
        let task = try report(id, mirrors: false)
        guard task.state != .paused, !task.state.isStopped else { throw .failure("GID#\(task.gid) cannot be paused now") }
        try control(id, "pause")
        return .string(task.gid)
    }

    /// `resume` (R30) of a paused task; aria2c unpauses nothing else (the
    /// mount's `resume` would also restart a failed task).
    private func unpause(_ id: Int64) throws(Aria2Error) -> JSONValue {
        let task = try report(id, mirrors: false)
        guard task.state == .paused else { throw .failure("GID#\(task.gid) cannot be unpaused now") }
        try control(id, "resume")
        return .string(task.gid)
    }

    /// `move N` (R30) to the place `how` and `offset` name, as aria2c:
    /// `POS_SET` from the head, `POS_CUR` from the task's place, `POS_END`
    /// from the last; kept within the line. Answers the place.
    private func changePosition(_ id: Int64, _ offset: Int64, _ how: String) throws(Aria2Error) -> JSONValue {
        let waiting = try waiting(atMost: nil)
        guard let current = waiting.firstIndex(of: id) else {
            throw .failure("GID#\(Aria2GID.text(id)) not found in the waiting queue.")
        }
        let last = Int64(waiting.count - 1)
        let base: Int64
        switch how {
        case "POS_SET": base = 0
        // Its place in the real line; an older mount that does not say: in the listed one.
        case "POS_CUR": base = Int64(try io({ () throws(MountViewError) in try mount.place(id) }) ?? current)
        case "POS_END": base = last
        default: throw .failure("Illegal argument.")
        }
        let (sum, overflow) = base.addingReportingOverflow(offset)
        let place = overflow ? (offset < 0 ? 0 : last) : min(max(sum, 0), last)
        try control(id, "move \(place)")
        return .integer(place)
    }

    // MARK: Results

    /// `removeDownloadResult`: a completed task is forgotten (R34) and its
    /// file stays; a failed one is removed (`rm -r`, R32: its partial data
    /// goes; it has no file in `files/`); a removed one is dropped from
    /// memory. A task that has not ended is refused.
    private func removeResult(_ id: Int64) throws(Aria2Error) -> JSONValue {
        if removed.drop(id) { return .string("OK") }
        let task = try report(id, mirrors: false)
        switch task.state {
        case .complete: try control(id, "forget")
        case .error: try io { () throws(MountViewError) in try mount.remove(id) }
        case .active, .waiting, .paused, .removed:
            throw .failure("Could not remove download result of GID#\(task.gid)")
        }
        return .string("OK")
    }

    /// `purgeDownloadResult`: `forget-completed` (R34), every failed task
    /// removed as `removeDownloadResult` does, every removed result dropped.
    private func purge() throws(Aria2Error) -> JSONValue {
        try controlGlobal("forget-completed")
        for id in try rows({ $0 == .failed }) {
            do {
                try mount.remove(id)
            } catch where error.code == 2 {
                // ENOENT: gone meanwhile.
            } catch {
                throw Aria2Error(error)
            }
        }
        removed.dropAll()
        return .string("OK")
    }

    // MARK: Options

    /// `getOption`: the task's `ctl` settings (R30) as aria2 options, with
    /// its `dir` and `out`.
    private func option(_ id: Int64) throws(Aria2Error) -> JSONValue {
        let task = try report(id, mirrors: false)
        if task.state == .removed, let kept = removed.options(id) { return kept }
        guard let settings = try io({ () throws(MountViewError) in try mount.settings(id) }) else { throw notFound(id) }
        var options = Self.aria2Options(settings, names: ["limit": "max-download-limit", "split": "split"])
        options["dir"] = .string(task.directory)
        if let name = task.name { options["out"] = .string(name) }
        return .object(options)
    }

    /// `getGlobalOption`: `MOUNT/ctl`'s settings (R31) as aria2 options, and `dir`.
    private func globalOption() throws(Aria2Error) -> JSONValue {
        let settings = try io { () throws(MountViewError) in try mount.globalSettings() }
        var options = Self.aria2Options(settings, names: ["max-active": "max-concurrent-downloads",
                                                          "limit": "max-overall-download-limit", "split": "split"])
        options["dir"] = .string(mount.path + "/files")
        return .object(options)
    }

    /// `ctl` lines (`limit 2M`) as aria2 options named by `names`; a rate in bytes/s.
    static func aria2Options(_ settings: String, names: [String: String]) -> [String: JSONValue] {
        var options: [String: JSONValue] = [:]
        for line in settings.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard words.count == 2, let name = names[words[0]] else { continue }
            let value = words[0] == "limit" ? ByteRate.parse(words[1]).map { String($0) } ?? words[1] : words[1]
            options[name] = .string(value)
        }
        return options
    }

    // MARK: Status

    private func globalStat() throws(Aria2Error) -> JSONValue {
        let table = try io { () throws(MountViewError) in try mount.table() }
        let states = StatusReading.rows(inTable: table).map { Aria2State($0.state) }
        let stopped = states.filter(\.isStopped).count + removed.all.count
        let speed = StatusReading.overallSpeed(inTable: table)
            .flatMap { ByteRate.parse($0.replacingOccurrences(of: " ", with: "")) } ?? 0
        return .object([
            "downloadSpeed": .string(String(speed)),
            "uploadSpeed": .string("0"),
            "numActive": .string(String(states.filter { $0 == .active }.count)),
            "numWaiting": .string(String(states.filter(\.isWaiting).count)),
            "numStopped": .string(String(stopped)),
            "numStoppedTotal": .string(String(stopped)),
        ])
    }

    /// The task's report: from the mount, else a removed result; its log
    /// is read only for its `mirrors` (`files`, `getUris`, `getServers`).
    private func report(_ id: Int64, mirrors: Bool, ranges: Bool = false) throws(Aria2Error) -> Aria2TaskReport {
        guard let task = try reportIfKnown(id, mirrors: mirrors, ranges: ranges) else { throw notFound(id) }
        return task
    }

    /// `report`, or nil when the task is neither in the mount nor removed here.
    private func reportIfKnown(_ id: Int64, mirrors: Bool, ranges: Bool = false) throws(Aria2Error) -> Aria2TaskReport? {
        guard let shown = try io({ () throws(MountViewError) in try mount.task(id, mirrors: mirrors, ranges: ranges) }) else {
            return removed.report(id)
        }
        guard let task = Aria2TaskReport(status: shown.status, mirrors: shown.mirrors, mount: mount.path, held: shown.ranges) else {
            throw .failure("the status of task \(id) could not be read")
        }
        return task
    }

    /// Whether a key list asks for `key` (none or an empty one asks for every key).
    static func wants(_ key: String, _ keys: [String]?) -> Bool {
        keys.map { $0.isEmpty || $0.contains(key) } ?? true
    }

    /// The ids of `MOUNT/status`'s rows whose state `keep` takes, in the
    /// table's (id) order; the table is read only until `atMost` are found.
    private func rows(atMost limit: Int? = nil, _ keep: (TaskState) -> Bool) throws(Aria2Error) -> [Int64] {
        var ids: [Int64] = []
        if limit == 0 { return ids }
        try io { () throws(MountViewError) in
            try mount.forEachTableLine { line in
                if let row = StatusReading.row(inLine: line), keep(row.state) { ids.append(row.id) }
                return limit.map { ids.count < $0 } ?? true
            }
        }
        return ids
    }

    /// Waiting and paused tasks in the order they will start, at least the
    /// first `limit` of them: the mount's line, and past what its attribute
    /// holds (about 9,000 tasks), or from a mount that does not give it,
    /// the table's by id.
    private func waiting(atMost limit: Int?) throws(Aria2Error) -> [Int64] {
        let isWaiting = { (state: TaskState) in Aria2State(state).isWaiting }
        guard let line = try io({ () throws(MountViewError) in try mount.waitingLine() }) else {
            return try rows(atMost: limit, isWaiting)
        }
        if line.more == 0 || limit.map({ $0 <= line.ids.count }) == true { return line.ids }
        let listed = Set(line.ids)
        return line.ids + (try rows(isWaiting)).filter { !listed.contains($0) }
    }

    /// The entries of tasks `ids`; a task gone since the table was read is left out.
    private func list(_ ids: [Int64], keys: [String]?) throws(Aria2Error) -> JSONValue {
        var entries: [JSONValue] = []
        for id in ids {
            if let task = try reportIfKnown(id, mirrors: Self.wants("files", keys), ranges: Self.wants("bitfield", keys)) { entries.append(task.entry(keys: keys)) }
        }
        return .array(entries)
    }

    private func stopped(_ window: ResultWindow, keys: [String]?) throws(Aria2Error) -> JSONValue {
        let ended: [Int64] = try rows { $0.isFinished }
        let results = ended.map { (id: $0, removed: nil as Aria2TaskReport?) } + removed.all.map { (id: $0.id, removed: $0) }
        var entries: [JSONValue] = []
        for result in window.slice(results) {
            if let report = result.removed {
                entries.append(report.entry(keys: keys))
            } else {
                entries += try list([result.id], keys: keys).arrayValue ?? []
            }
        }
        return .array(entries)
    }

    // MARK: The mount

    private func control(_ id: Int64, _ command: String) throws(Aria2Error) {
        try io { () throws(MountViewError) in try mount.control(id, command) }
    }

    private func controlGlobal(_ command: String) throws(Aria2Error) {
        try io { () throws(MountViewError) in try mount.controlGlobal(command) }
    }

    private func notFound(_ id: Int64) -> Aria2Error {
        .failure("GID \(Aria2GID.text(id)) is not found")
    }

    /// A mount operation; what it refuses is answered in its words.
    private func io<T>(_ body: () throws(MountViewError) -> T) throws(Aria2Error) -> T {
        do {
            return try body()
        } catch {
            throw Aria2Error(error)
        }
    }
}
