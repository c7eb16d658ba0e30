import Catalog
import DownloadFSCore

/// What other threads send the loop. Engine and worker reports are events
/// for one task; user requests carry the reply their writer waits for.
enum LoopMessage: Sendable {
    case event(Int64, TaskEvent)
    case add([InputEntry], LoopReply<[Int64], CatalogError>)
    case control(Int64, ControlCommand, LoopReply<Void, ControlCommandError>)
    case controlGlobal(ControlCommand, LoopReply<Void, ControlCommandError>)
    case remove(Int64, LoopReply<Void, CatalogError>)
    case rename(Int64, String, LoopReply<Void, RenameError>)
    case shutdown(LoopReply<Void, Never>)
}
