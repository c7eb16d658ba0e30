/// Decides which tasks run (R16, R30 `start`/`top`, R31 `max-active`); pure.
///
/// Running means occupying a slot: `downloading` (`TaskState.holdsSlot`; a
/// `verifying` task has every byte and holds none). Only `queued`
/// tasks are started automatically, first by position then by id, so a paused,
/// retrying, failed or completed task is never picked up by itself. Demotion
/// only ever touches `downloading` tasks: a checksum being verified finishes.
public enum Scheduler {
    /// Fills free slots with the lowest-position queued tasks; over the limit, demotes the most recently started downloads.
    public static func plan(_ tasks: [SchedulableTask], maxActive: Int) -> SchedulePlan {
        let limit = max(0, maxActive)
        let running = tasks.filter { $0.state.holdsSlot }.count
        if running < limit {
            let waiting = tasks.filter { $0.state == .queued }.sorted(by: lineOrder)
            return SchedulePlan(start: waiting.prefix(limit - running).map(\.id))
        }
        // Tasks on their way out keep their slots until they are out, and
        // already count as gone for the excess.
        let staying = running - tasks.filter { $0.state.holdsSlot && $0.leaving }.count
        if staying > limit {
            let newestFirst = tasks.filter { $0.state == .downloading && !$0.leaving }.sorted { a, b in
                let sa = a.startedAt ?? .infinity
                let sb = b.startedAt ?? .infinity
                return sa != sb ? sa > sb : a.id > b.id
            }
            return SchedulePlan(demote: newestFirst.prefix(staying - limit).map(\.id))
        }
        return .nothing
    }

    /// `start` on one task (R30): starts it at once, demoting the earliest-started download if every slot is busy.
    ///
    /// Only a queued, paused, failed or retrying task can be started; anything
    /// else (unknown id, already running, completed) gives an empty plan.
    public static func startNow(_ id: Int64, in tasks: [SchedulableTask], maxActive: Int) -> SchedulePlan {
        guard let task = tasks.first(where: { $0.id == id }),
              [.queued, .paused, .failed, .retrying].contains(task.state) else {
            return .nothing
        }
        let running = tasks.filter { $0.state.holdsSlot }.count
        if running < max(0, maxActive) {
            return SchedulePlan(start: [id])
        }
        let earliest = tasks.filter { $0.state == .downloading && !$0.leaving }.min { a, b in
            let sa = a.startedAt ?? -.infinity
            let sb = b.startedAt ?? -.infinity
            return sa != sb ? sa < sb : a.id < b.id
        }
        return SchedulePlan(start: [id], demote: earliest.map { [$0.id] } ?? [])
    }

    /// `top` (R30): a position lower than that of every task not yet completed.
    public static func topPosition(in tasks: [SchedulableTask]) -> Int64 {
        let lowest = tasks.filter { $0.state != .completed }.map(\.position).min()
        guard let lowest else { return 0 }
        return topPosition(below: lowest)
    }

    /// `top` (R30) when the lowest position in use is known: the one before it.
    public static func topPosition(below lowest: Int64) -> Int64 {
        lowest == .min ? .min : lowest - 1
    }

    static func lineOrder(_ a: SchedulableTask, _ b: SchedulableTask) -> Bool {
        a.position != b.position ? a.position < b.position : a.id < b.id
    }
}
