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

    /// Moves STATE/partial/<id> to STATE/files/<name> without replacing a
    /// file there (a name taken meanwhile gets ` (1)`, … as R17 says), with
    /// the server's Last-Modified as mtime (R40) and mode 0444. The data was
    /// synced by the engine before the download was reported complete.
    func finalize(_ id: Int64, name: String, lastModified: String?, isTaken: @escaping @Sendable (String) -> Bool,
                  then report: @escaping @Sendable (FinalizeResult) -> Void) {
        let state = state
        run {
            let source = state.partial(id)
            var chosen = name
            var moved = false
            for _ in 0..<1000 {
                if !isTaken(chosen), clinux_rename_noreplace(source, state.file(chosen)) == 0 {
                    moved = true
                    break
                }
                guard errno == EEXIST || isTaken(chosen) else {
                    return report(.failed(String(cString: strerror(errno))))
                }
                chosen = FileName.unique(name) { isTaken($0) || access(state.file($0), F_OK) == 0 }
            }
            guard moved else { return report(.failed("no free name for \(name)")) }
            let target = state.file(chosen)
            let modified = lastModified.flatMap(HeaderValue.httpDate) ?? Date()
            let seconds = Int(modified.timeIntervalSince1970)
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            utimensat(AT_FDCWD, target, &times, 0)
            chmod(target, 0o444)
            report(.moved(name: chosen))
        }
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
