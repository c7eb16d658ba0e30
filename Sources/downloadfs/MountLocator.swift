import DownloadFS
import Foundation

/// Finds the mount a client command talks to: the one given, or the only
/// downloadfs mount there is.
enum MountLocator {
    static func resolve(_ given: String?, command: String) throws -> String {
        if let given { return MountPreflight.absolute(given) }
        let mounts = MountTable.downloadfsMounts()
        switch mounts.count {
        case 1: return mounts[0].mountpoint
        case 0: throw ClientError("\(command): no downloadfs is mounted; mount one with downloadfs mount DIR")
        default: throw ClientError("\(command): several downloadfs mounts; say which with --mount DIR")
        }
    }
}
