import DownloadFSCore
import Foundation
import Glibc

/// The layout of the state dir: the catalog, the lock, partial and finished
/// data (R42). Only `files/` is meant for users.
public struct StateDirectory: Sendable {
    public let root: String

    public init(_ root: String) { self.root = root }

    public var catalog: String { root + "/catalog.sqlite" }
    public var lock: String { root + "/lock" }
    public var pidFile: String { root + "/daemon.pid" }
    public var daemonLog: String { root + "/daemon.log" }
    public var partialDir: String { root + "/partial" }
    public var filesDir: String { root + "/files" }
    /// Partial data that no task in the catalog claims, kept for the user.
    public var orphanedDir: String { root + "/orphaned" }

    public func partial(_ id: Int64) -> String { partialDir + "/\(id)" }
    public func file(_ name: String) -> String { filesDir + "/" + name }

    /// Makes the folders a file at `path` (`FilesPath`) goes into, each
    /// that is missing (R35: `dir=` creates them).
    func makeFolders(for path: String) throws(FolderBlockedError) {
        let parts = FilesPath.folder(of: path).split(separator: "/")
        // Not through a link: a folder of files/ is a folder of the state dir.
        guard let (index, cause) = Self.makeEach(parts, under: filesDir, followingLinks: false) else { return }
        throw FolderBlockedError(folder: parts[...index].joined(separator: "/"), cause: cause)
    }

    /// `mkdir -p`: each of `parts` under `base` in turn, made when missing
    /// (the last with `lastMode`, the others 0755). Nil when each is a
    /// directory at the end; else the index of the first that is not, and
    /// why (mkdir(2)'s own reason).
    static func makeEach(_ parts: [Substring], under base: String, lastMode: mode_t = 0o755,
                         followingLinks: Bool) -> (index: Int, cause: FolderBlockedError.Cause)? {
        var path = base
        for (index, part) in parts.enumerated() {
            path += "/" + part
            if mkdir(path, index == parts.count - 1 ? lastMode : 0o755) == 0 { continue }
            let code = errno
            var info = stat()
            let found = followingLinks ? stat(path, &info) : lstat(path, &info)
            if code == EEXIST && found == 0 && info.st_mode & S_IFMT == S_IFDIR { continue }
            return (index, code == EEXIST ? .fileInTheWay : .system(String(cString: strerror(code))))
        }
        return nil
    }

    /// The default: ${XDG_DATA_HOME:-$HOME/.local/share}/downloadfs (R1).
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/downloadfs" }
        return (env["HOME"] ?? "/root") + "/.local/share/downloadfs"
    }

    /// Files that hold secrets (URLs with passwords, `header=` values): the
    /// catalog with its WAL and shared-memory files, and the daemon's log.
    var privateFiles: [String] { [catalog, catalog + "-wal", catalog + "-shm", daemonLog] }

    /// Creates the directories; throws the user's sentence when it cannot (R2).
    ///
    /// The state dir is made 0700 and the catalog and daemon log are created
    /// 0600 before anything writes them (R6): SQLite gives its WAL and
    /// shared-memory files the mode of the database file.
    public func create() throws(DaemonError) {
        for dir in [root, partialDir, filesDir] {
            let parts = dir.split(separator: "/")
            if let (index, cause) = Self.makeEach(parts, under: dir.hasPrefix("/") ? "" : ".",
                                                  lastMode: dir == root ? 0o700 : 0o755, followingLinks: true) {
                let blocked = (dir.hasPrefix("/") ? "/" : "") + parts[...index].joined(separator: "/")
                let why = switch cause {
                case .fileInTheWay: "\(blocked) is a file, not a directory"
                case .system(let reason): "\(blocked): \(reason)"
                }
                throw DaemonError("cannot create the state dir \(dir): \(why)")
            }
            guard access(dir, W_OK) == 0 else {
                throw DaemonError("cannot write to the state dir \(dir): \(String(cString: strerror(errno)))")
            }
        }
        for path in [catalog, daemonLog] {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
    }

    /// Makes what holds secrets private to the user (R6): the state dir
    /// 0700, the catalog files and the daemon log 0600. Fixes the modes of a
    /// state dir made by an older version and returns a sentence for the log
    /// per fix.
    public func secure() -> [String] {
        var notes: [String] = []
        for (path, mode) in [(root, mode_t(0o700))] + privateFiles.map({ ($0, mode_t(0o600)) }) {
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & 0o077 != 0 else { continue }
            let old = st.st_mode & 0o7777
            if chmod(path, mode) == 0 {
                notes.append("\(path) was readable by other users (mode \(String(old, radix: 8))); "
                    + "set to \(String(mode, radix: 8)): it holds URLs with passwords and header values")
            } else {
                notes.append("\(path) is readable by other users and could not be made private: "
                    + String(cString: strerror(errno)))
            }
        }
        return notes
    }
}
