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
        var folder = ""
        for part in FilesPath.folder(of: path).split(separator: "/") {
            folder = FilesPath.join(folder, part)
            if mkdir(file(folder), 0o755) == 0 || errno == EEXIST && isFolder(folder) { continue }
            throw FolderBlockedError(folder: folder, cause: errno == EEXIST ? .fileInTheWay
                                                                            : .system(String(cString: strerror(errno))))
        }
    }

    private func isFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(file(path), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
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
            if let problem = Self.makeDirectories(dir, mode: dir == root ? 0o700 : 0o755) {
                throw DaemonError("cannot create the state dir \(dir): \(problem)")
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

    /// `mkdir -p`, the last directory made with `mode`, with mkdir(2)'s own
    /// reason for a failure (Foundation's was "NSCocoaErrorDomain error 512"
    /// for a file in the way): nil when `path` is a directory at the end.
    static func makeDirectories(_ path: String, mode: mode_t) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var prefix = path.hasPrefix("/") ? "" : "."
        for (index, part) in parts.enumerated() {
            prefix += "/" + part
            if mkdir(prefix, index == parts.count - 1 ? mode : 0o755) == 0 { continue }
            let code = errno
            var st = stat()
            if code == EEXIST && stat(prefix, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { continue }
            if code == EEXIST { return "\(prefix) is a file, not a directory" }
            return "\(prefix): \(String(cString: strerror(code)))"
        }
        return nil
    }
}
