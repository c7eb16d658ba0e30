import DownloadFSCore

/// aria2's word for where a task stands (R72): `queued` → `waiting`,
/// `downloading`/`retrying`/`verifying` → `active`, `paused` → `paused`,
/// `completed` → `complete`, `failed` → `error`; `removed` is a task this
/// server cancelled (`remove`), kept in memory (`RemovedResults`).
public enum Aria2State: String, Sendable {
    case active, waiting, paused, error, complete, removed

    public init(_ state: TaskState) {
        switch state {
        case .queued: self = .waiting
        case .downloading, .retrying, .verifying: self = .active
        case .paused: self = .paused
        case .completed: self = .complete
        case .failed: self = .error
        }
    }

    /// Listed by `tellWaiting`: aria2's waiting queue holds paused downloads too.
    var isWaiting: Bool { self == .waiting || self == .paused }

    /// Listed by `tellStopped` rather than `tellActive` or `tellWaiting`.
    var isStopped: Bool { self == .error || self == .complete || self == .removed }
}
