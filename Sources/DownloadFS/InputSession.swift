import DownloadFSCore
import Foundation

/// The state of one open `queue/new` (or drop-in file, R14): the streaming
/// parser and the ids its writes added (R12).
final class InputSession: @unchecked Sendable {
    let lock = NSLock()
    var parser = InputParser()
    var ids: [Int64] = []
    /// The name of a drop-in file while it is open, for lookups.
    let dropInName: String?

    init(dropInName: String? = nil) { self.dropInName = dropInName }
}
