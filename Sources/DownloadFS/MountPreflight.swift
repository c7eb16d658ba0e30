import Foundation
import Glibc

/// The checks of R2 that must pass before anything is mounted, each failing
/// with one line that says what is wrong and what to do.
public enum MountPreflight {
    /// Returns the mountpoint as an absolute path, clearing a dead mount left
    /// there by a killed daemon. A directory with entries is refused unless
    /// `allowNonEmpty` (`-o nonempty`): the mount would hide them (R2).
    public static func check(mountpoint: String, allowNonEmpty: Bool = false) throws(DaemonError) -> String {
        let path = absolute(mountpoint)
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
        if MountTable.isMountPoint(path) {
            throw DaemonError("\(path) is already a mount point; unmount it first (downloadfs unmount \(path))")
        }
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
