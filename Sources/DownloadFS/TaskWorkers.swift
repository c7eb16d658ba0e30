import CLinux
import DownloadFSCore
import Engine
import Foundation
import Glibc

/// Slow work for finished downloads, off the loop and in parallel: checking
/// a checksum (R56) and moving the whole file into STATE/files (R42, R43).
/// Many small files then finish together and share one commit.
final class TaskWorkers: Sendable {
    private let state: StateDirectory
    private let pending = DispatchGroup()

    init(state: StateDirectory) { self.state = state }

    func verify(_ id: Int64, checksum: Checksum, then report: @escaping @Sendable (VerifyResult) -> Void) {
        let path = state.partial(id)
        run {
            switch FileDigest.hex(of: path, algorithm: checksum.algorithm) {
            case .success(let hex): report(hex == checksum.hex ? .matched : .mismatched(actual: hex))
            case .failure(let failure): report(.unreadable(failure))
            }
        }
    }

    /// One whole file to move into files/ (`finalize`), and where its result goes.
    struct Move: Sendable {
        let id: Int64
        let name: String
        let lastModified: String?
        let origin: OriginAttributes
        let report: @Sendable (FinalizeResult) -> Void
    }

    /// Moves each STATE/partial/<id> to STATE/files/<name> without replacing a
    /// file there (a name taken meanwhile gets ` (1)`, … as R17 says), with
    /// the server's Last-Modified as mtime (R40), the origin attributes
    /// stored on it (R41, R42: they stay with the file when nothing is
    /// mounted, and once its task is forgotten, R34) and mode 0444. The data
    /// was synced by the engine before the download was reported complete.
    ///
    /// The mtime and attributes are set before the move, so the file lands
    /// whole: under another name than its task's (` (1)`) it is a plain file
    /// in `files/` until the loop commits that name, and shows right even
    /// then. The mode is set after: a move that fails leaves the partial
    /// writable for the next attempt. A filesystem that refuses user
    /// attributes (ENOTSUP) leaves the file without them; the mount still
    /// shows the task's from its record.
    ///
    /// The moves of one turn (a group of files flushed together) are one
    /// job, reported together, so their completions share the loop's next
    /// turn and commit; a queue per file cost a thread's wake-up each.
    /// `isTaken(name, id)`: another task than `id` has `name`.
    func finalize(_ moves: [Move], isTaken: @escaping @Sendable (String, Int64) -> Bool) {
        let state = state
        run {
            let results = moves.map { move in Self.move(move, in: state) { isTaken($0, move.id) } }
            for (move, result) in zip(moves, results) { move.report(result) }
        }
    }

    private static func move(_ move: Move, in state: StateDirectory, isTaken: (String) -> Bool) -> FinalizeResult {
        let (id, name, lastModified, origin) = (move.id, move.name, move.lastModified, move.origin)
        let source = state.partial(id)
        let landed = FinishedFileTime.landed(Date())
        let modified = FinishedFileTime.modified(lastModified: lastModified, landedAt: landed) ?? landed
        let seconds = Int(modified.timeIntervalSince1970)
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        utimensat(AT_FDCWD, source, &times, 0)
        _ = origin.store(on: source)
        var chosen = name
        var moved = false
        for _ in 0..<1000 {
            // Its folder (R35), made again if an `rmdir` took it meanwhile.
            do throws(FolderBlockedError) { try state.makeFolders(for: chosen) } catch { return .failed(error.message) }
            if !isTaken(chosen), clinux_rename_noreplace(source, state.file(chosen)) == 0 {
                moved = true
                break
            }
            guard errno == EEXIST || errno == ENOENT && access(source, F_OK) == 0 || isTaken(chosen) else {
                return .failed(String(cString: strerror(errno)))
            }
            chosen = FileName.unique(name) { isTaken($0) || access(state.file($0), F_OK) == 0 }
        }
        guard moved else { return .failed("no free name for \(name)") }
        chmod(state.file(chosen), 0o444)
        return .moved(name: chosen, at: landed)
    }

    /// Each job on a queue of its own, which targets the overcommitting
    /// global queue: a job blocked on the disk never holds up the next one
    /// (a custom concurrent queue runs only as many as there are cores).
    private func run(_ work: @escaping @Sendable () -> Void) {
        pending.enter()
        DispatchQueue(label: "downloadfs.worker").async { [pending] in
            work()
            pending.leave()
        }
    }

    /// Waits (at shutdown) for work under way, at most 30 s.
    func drain() {
        _ = pending.wait(timeout: .now() + 30)
    }
}
