/// Whether a state dir and a mountpoint may be used together (R2): neither
/// may be the other or lie inside the other. A state dir the mount covers is
/// hidden from the daemon's own lookups — its first write would wait on the
/// mount it serves, for good — and a mountpoint inside the state dir is
/// another filesystem, so finished files could not be moved into
/// `STATE/files`. Both paths come resolved (absolute, links followed), so a
/// link cannot hide the overlap.
public enum StateDirPlacement {
    /// nil when `stateDir` and `mountpoint` are apart; else the one line
    /// that says what is wrong and what to do.
    public static func problem(stateDir: String, mountpoint: String) -> String? {
        let state = parts(stateDir), mount = parts(mountpoint)
        if state == mount {
            return "the state dir \(stateDir) is the mountpoint itself: the mount would hide it from downloadfs; "
                + "give --state-dir a directory outside \(mountpoint)"
        }
        if state.starts(with: mount) {
            return "the state dir \(stateDir) is inside the mountpoint \(mountpoint): the mount would hide it "
                + "from downloadfs; give --state-dir a directory outside \(mountpoint)"
        }
        if mount.starts(with: state) {
            return "the mountpoint \(mountpoint) is inside the state dir \(stateDir): downloadfs keeps its "
                + "data there; mount on a directory outside \(stateDir)"
        }
        return nil
    }

    /// The path's components: "/a/b/" and "/a//b" are the same, and "/a/bc"
    /// is not inside "/a/b".
    private static func parts(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
