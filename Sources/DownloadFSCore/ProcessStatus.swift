/// What `/proc/TID/status` says of the thread a FUSE request came from:
/// the process it belongs to. The kernel names a request's caller by its
/// thread id, and a close from another thread of the opener's process is
/// still the opener's (R11, `queue/new`).
public struct ProcessStatus: Equatable, Sendable {
    /// The process id: the thread group's (`Tgid:`).
    public let threadGroup: Int32

    /// Reads the `Tgid:` line; nil when there is none (not a status file).
    public init?(text: String) {
        for line in text.split(separator: "\n") where line.hasPrefix("Tgid:") {
            guard let id = Int32(line.dropFirst("Tgid:".count).trimmingSpacesAndTabs()) else {
                return nil
            }
            threadGroup = id
            return
        }
        return nil
    }
}
