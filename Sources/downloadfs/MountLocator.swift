import DownloadFS
import Foundation

/// Finds the mount a client command talks to: the one given, or the only
/// downloadfs mount there is. Every client command names a mount the same
/// way, with `--mount DIR` (`status` and `unmount` also take it as their
/// MOUNTPOINT argument), so the hints below work as written everywhere.
/// Nothing here touches the mount itself: paths are made absolute as
/// strings and mounts are read from /proc/self/mountinfo.
enum MountLocator {
    static func resolve(_ given: String?, command: String) throws -> String {
        if let given { return MountPreflight.absolute(given) }
        let mounts = MountTable.downloadfsMounts()
        switch mounts.count {
        case 1: return mounts[0].mountpoint
        case 0: throw ClientError("\(command): no downloadfs is mounted; mount one with downloadfs mount DIR")
        default:
            let list = mounts.map(\.mountpoint).joined(separator: ", ")
            throw ClientError("\(command): several downloadfs mounts (\(list)); say which with --mount DIR")
        }
    }

    /// The mount named by the MOUNTPOINT argument or by `--mount`, made
    /// absolute; nil when neither is given. Both may be given only alike.
    static func named(positional: String?, option: String?, command: String) throws -> String? {
        switch (positional.map(MountPreflight.absolute), option.map(MountPreflight.absolute)) {
        case let (path?, other?) where path != other:
            throw ClientError("\(command): two mounts named (\(path) and --mount \(other)); give one")
        case let (path?, _), let (nil, path?): return path
        case (nil, nil): return nil
        }
    }
}
