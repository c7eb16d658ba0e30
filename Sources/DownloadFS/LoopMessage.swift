import Catalog
import DownloadFSCore
import Engine

/// What other threads send the loop. Engine and worker reports are events
/// for one task; user requests carry the reply their writer waits for.
enum LoopMessage: Sendable {
    case event(Int64, TaskEvent)
    case add([InputEntry], LoopReply<[Int64], CatalogError>)
    case control(Int64, ControlCommand, LoopReply<Void, ControlCommandError>)
    case controlGlobal(ControlCommand, LoopReply<Void, ControlCommandError>)
    case remove(Int64, LoopReply<Void, CatalogError>)
    case rename(Int64, String, LoopReply<Void, RenameError>)
    /// A plain file, or a folder (`isFolder`, R35).
    case renameFile(String, String, isFolder: Bool, LoopReply<Void, RenameError>)
    case makeFolder(String, LoopReply<Void, RenameError>)
    /// A reader waits for bytes of a task (R23): park `reader` in the
    /// task's live progress, tell `parked` its token, fetch the bytes
    /// (nil: wait for the task to tell its readers, e.g. its completion).
    case read(Int64, Range<Int64>?, LiveProgress.Reader, @Sendable (LiveProgress, UInt64) -> Void)
    case shutdown(LoopReply<Void, Never>)
}
