import DownloadFSCore
import Foundation
import Glibc

/// The checks of R2 that must pass before anything is mounted, each failing
/// with one line that says what is wrong and what to do.
public enum MountPreflight {
    /// Returns the mountpoint as an absolute path with its symbolic links
    /// followed (the directory the kernel mounts on, and the path the mount
    /// table will show), clearing a dead mount left there by a killed
    /// daemon. A directory with entries is refused unless `allowNonEmpty`
    /// (`-o nonempty`): the mount would hide them (R2).
    public static func check(mountpoint: String, allowNonEmpty: Bool = false) throws(DaemonError) -> String {
        // libfuse would take the link itself for the mount's root and the
        // kernel refuse the mount with a false reason (ENOTCONN).
        let path = linksFollowedSafely(absolute(mountpoint)) ?? absolute(mountpoint)
        var st = stat()
        if stat(path, &st) == 0, MountTable.isMountPoint(path),
           MountProbe.ask(path, within: 2) == .failed(errno: ENOTCONN) {
            // A dead mount whose root's attributes the kernel still had
            // cached: `stat` answered from the cache.
            try clearDeadMount(path, &st)
        }
        if stat(path, &st) != 0 {
            let err = errno
            if err == ENOTCONN {
                try clearDeadMount(path, &st)
            } else if err == ENOENT {
                throw DaemonError("mountpoint \(path) does not exist; create it with mkdir -p \(path)")
            } else {
                throw DaemonError("cannot use mountpoint \(path): \(String(cString: strerror(err)))")
            }
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw DaemonError("mountpoint \(path) is not a directory")
        }
        try checkNotMounted(path)
        if !allowNonEmpty, let entry = firstEntry(path) {
            throw DaemonError("mountpoint \(path) is not empty (it holds \(entry)); mounting would hide its files: empty it, or add -o nonempty")
        }
        let fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw DaemonError("/dev/fuse is not available (\(String(cString: strerror(errno)))); load the fuse module or run where FUSE is allowed")
        }
        close(fd)
        guard findExecutable("fusermount3") != nil else {
            throw DaemonError("fusermount3 was not found; install the fuse3 package (apt-get install fuse3)")
        }
        return path
    }

    /// R2: nothing is mounted at `path` yet. Asked again once the
    /// mountpoint is claimed (`MountpointClaim`): another mount may have won.
    public static func checkNotMounted(_ path: String) throws(DaemonError) {
        if MountTable.isMountPoint(path) {
            throw DaemonError("\(path) is already a mount point; unmount it first (downloadfs unmount \(path))")
        }
    }

    /// The state dir as the kernel will find it (absolute, links followed,
    /// the missing tail kept as written), refused when it and the mountpoint
    /// (`check`'s answer) overlap (`StateDirPlacement`). Before the state
    /// dir is made: one made inside the mountpoint would make it not empty.
    public static func checkStateDir(_ stateDir: String, mountpoint: String) throws(DaemonError) {
        var existing = absolute(stateDir)
        var missing: [Substring] = []
        var resolved = linksFollowed(existing)
        while resolved == nil, existing != "/", let slash = existing.lastIndex(of: "/") {
            missing.insert(existing[existing.index(after: slash)...], at: 0)
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
            resolved = linksFollowed(existing)
        }
        let base = resolved ?? existing
        let full = missing.isEmpty ? base : (base == "/" ? "" : base) + "/" + missing.joined(separator: "/")
        if let problem = StateDirPlacement.problem(stateDir: full, mountpoint: mountpoint) {
            throw DaemonError(problem)
        }
    }

    /// `path` made absolute and cleaned of `.`, `..` and repeated slashes,
    /// by string alone: it never touches the file system, so it cannot hang
    /// on a mount whose daemon is stopped (R3). (`URL(fileURLWithPath:)`
    /// stats the path.) Symbolic links are kept as written.
    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in full.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` with every symbolic link followed (realpath(3)); nil when a
    /// part is missing or a loop. It stats each part: not for a path whose
    /// mount may hang.
    public static func linksFollowed(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// `path` with its symbolic links followed: its parent's `realpath`,
    /// then its last part's link, if it is one. The last part is never
    /// `stat`ed, so a mount whose daemon is stopped or dead cannot hang or
    /// fail this: `readlink` of a mountpoint is answered by the kernel
    /// alone. nil when the parent is missing or links loop.
    public static func linksFollowedSafely(_ given: String) -> String? {
        linksFollowedSafely(given, hops: 0)
    }

    private static func linksFollowedSafely(_ given: String, hops: Int) -> String? {
        guard hops < 40 else { return nil }  // a loop of links, as ELOOP has it
        var path = Substring(given)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard path != "/", let slash = path.lastIndex(of: "/") else { return String(path) }
        guard let parent = linksFollowed(slash == path.startIndex ? "/" : String(path[..<slash])) else {
            return nil
        }
        let joined = (parent == "/" ? "" : parent) + "/" + path[path.index(after: slash)...]
        var target = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let count = readlink(joined, &target, target.count)
        guard count > 0 else { return joined }
        let link = String(decoding: target[..<count], as: UTF8.self)
        return linksFollowedSafely(link.hasPrefix("/") ? link : parent + "/" + link, hops: hops + 1)
    }

    /// `-o` options downloadfs sets itself and cannot give up: `subtype=`
    /// and `fsname=` are how its commands know a mount as theirs (type
    /// fuse.downloadfs, the state dir as its source). The one line refusing
    /// the first such option given, or nil.
    public static func refusedOption(_ options: [String]) -> String? {
        for value in options {
            for item in splitOptions(value) {
                for name in ["subtype", "fsname"] where item == name || item.hasPrefix(name + "=") {
                    return "-o \(item): downloadfs names its mounts itself (fuse.downloadfs, from the state dir), "
                        + "so that its commands find them; leave \(name) out"
                }
            }
        }
        return nil
    }

    /// The value of the last `-o max_read=N`, as libfuse reads it: the
    /// session's `init` must repeat it or libfuse refuses the handshake.
    public static func maxRead(_ options: [String]) -> UInt32? {
        var found: UInt32?
        for value in options {
            for item in splitOptions(value) where item.hasPrefix("max_read=") {
                if let number = UInt32(item.dropFirst("max_read=".count)) { found = number }
            }
        }
        return found
    }

    /// Takes `nonempty` out of the `-o` values (libfuse 3 does not know it;
    /// the preflight's emptiness check honours it instead). Returns the
    /// values left, empty ones dropped, and whether `nonempty` was given.
    public static func takeNonempty(_ options: [String]) -> (options: [String], nonempty: Bool) {
        var nonempty = false
        var kept: [String] = []
        for value in options {
            var items: [String] = []
            for item in splitOptions(value) {
                if item == "nonempty" { nonempty = true } else if !item.isEmpty { items.append(item) }
            }
            if !items.isEmpty { kept.append(items.joined(separator: ",")) }
        }
        return (kept, nonempty)
    }

    /// One `-o` value split at its commas, as libfuse splits it (a comma
    /// after a backslash is part of the option; the backslash is kept).
    static func splitOptions(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "," {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items
    }

    /// The name of some entry of the directory other than . and .., if any.
    static func firstEntry(_ path: String) -> String? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { return name }
        }
        return nil
    }

    public static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
            let candidate = dir + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// A dead FUSE mount ("Transport endpoint is not connected"). The
    /// killed daemon's auto_unmount helper (fusermount3) clears it by itself
    /// within moments; clearing it first would let that helper unmount our
    /// new mount instead. Give it 5 s, then detach it ourselves; `st` is the
    /// mountpoint's own directory afterwards.
    static func clearDeadMount(_ path: String, _ st: inout stat) throws(DaemonError) {
        let deadline = Date().addingTimeInterval(5)
        while MountTable.isMountPoint(path) && Date() < deadline { usleep(50_000) }
        if MountTable.isMountPoint(path), let fusermount = findExecutable("fusermount3") {
            _ = Subprocess.run(fusermount, ["-uz", path])
        }
        if stat(path, &st) != 0 || MountTable.isMountPoint(path) {
            let reason = MountTable.isMountPoint(path) ? "it is still mounted" : String(cString: strerror(errno))
            throw DaemonError("\(path) holds a dead mount that could not be cleared (\(reason)); try fusermount3 -uz \(path)")
        }
    }
}
