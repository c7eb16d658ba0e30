import DownloadFS
import Foundation

/// Finds the mount a client command talks to: the one given, or the only
/// downloadfs mount there is. Every client command names a mount the same
/// way, with `--mount DIR` (`status` and `unmount` also take it as their
/// MOUNTPOINT argument), so the hints below work as written everywhere.
/// Nothing here touches the mount itself: paths are made absolute as
/// strings and mounts are read from /proc/self/mountinfo.
///
/// A directory given is checked against that table: a plain directory (or
/// a missing one) is no mount, and a client that wrote into its files as
/// if it were would "succeed" at nothing (`ctl` writing a plain file,
/// `add` printing no id) or blame a task that was never there.
enum MountLocator {
    static func resolve(_ given: String?, command: String) throws -> String {
        let mounts = MountTable.downloadfsMounts()
        if let given {
            let path = MountPreflight.absolute(given)
            guard let mount = mount(at: path, among: mounts) else {
                throw ClientError("\(command): \(path) is not a downloadfs mount; is downloadfs mounted there?")
            }
            return mount.mountpoint
        }
        switch mounts.count {
        case 1: return mounts[0].mountpoint
        case 0: throw ClientError("\(command): no downloadfs is mounted; mount one with downloadfs mount DIR")
        default:
            let list = mounts.map(\.mountpoint).joined(separator: ", ")
            throw ClientError("\(command): several downloadfs mounts (\(list)); say which with --mount DIR")
        }
    }

    /// The downloadfs mount at `path`: the one whose mountpoint is `path`
    /// as written or, failing that, as its symbolic links lead (a home
    /// directory reached through a link: the mount table holds the path the
    /// kernel resolved).
    private static func mount(at path: String, among mounts: [MountTable.Mount]) -> MountTable.Mount? {
        if let mount = mounts.first(where: { $0.mountpoint == path }) { return mount }
        guard let resolved = MountPreflight.linksFollowedSafely(path) else { return nil }
        return mounts.first { $0.mountpoint == resolved }
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
