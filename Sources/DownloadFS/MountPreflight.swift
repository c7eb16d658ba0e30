import Foundation
import Glibc

/// The checks of R2 that must pass before anything is mounted, each failing
/// with one line that says what is wrong and what to do.
public enum MountPreflight {
    /// Returns the mountpoint as an absolute path, clearing a dead mount left
    /// there by a killed daemon.
    public static func check(mountpoint: String) throws(DaemonError) -> String {
        let path = absolute(mountpoint)
        var st = stat()
        if stat(path, &st) != 0 {
            let err = errno
            if err == ENOTCONN {
                // A dead FUSE mount ("Transport endpoint is not connected").
                // The killed daemon's auto_unmount helper (fusermount3) clears
                // it by itself within moments; clearing it first would let that
                // helper unmount our new mount instead. Give it 5 s.
                let deadline = Date().addingTimeInterval(5)
                while stat(path, &st) != 0 && errno == ENOTCONN && Date() < deadline { usleep(50_000) }
                if stat(path, &st) != 0 && errno == ENOTCONN { clearDeadMount(path) }
                if stat(path, &st) != 0 {
                    throw DaemonError("\(path) holds a dead mount that could not be cleared: \(String(cString: strerror(errno))); try fusermount3 -uz \(path)")
                }
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

    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    public static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
            let candidate = dir + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func clearDeadMount(_ path: String) {
        guard let fusermount = findExecutable("fusermount3") else { return }
        _ = Subprocess.run(fusermount, ["-uz", path])
    }
}
