import DownloadFSCore
import Glibc

/// A task's data file (STATE/partial/<id>) opened for an attempt.
///
/// The engine thread opens it when it takes the start. It was opened on a
/// queue of its own for a while, because creating files took 40 % of the
/// engine thread's samples in one profile; that profile was taken minutes
/// after a mass delete, when ext4 without a journal probes every inode
/// freed in the last minutes at each create. On a settled filesystem the
/// hop to that queue and back cost more than the create (1,000 × 64 KiB,
/// eight alternating rounds: 0.60 CPU-s and 7,700 context switches
/// against 0.55 and 6,300; wall 0.366 s against 0.347).
struct DataFile: Sendable {
    let fd: Int32
    /// A file of unknown size ends where its trusted bytes end (R51): the
    /// size it was cut to, nil when the total is known.
    let cut: Int64?

    /// Opens (creates) the data file for `request` and cuts it as R51 says.
    /// With nothing trusted, O_TRUNC says so at the open (free for a file
    /// the open creates) instead of an ftruncate per new task.
    static func open(for request: TransferRequest) throws(TransferFailure) -> DataFile {
        let cut = request.known.total == nil ? request.held.prefixEnd : nil
        let fd = Glibc.open(request.partialPath, O_WRONLY | O_CREAT | O_CLOEXEC | (cut == 0 ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw writeFailure(errno) }
        if let cut, cut > 0, ftruncate(fd, off_t(cut)) != 0 {
            let err = errno
            close(fd)
            throw writeFailure(err)
        }
        return DataFile(fd: fd, cut: cut)
    }

    /// Cuts the file again: an attempt of the same task that this one
    /// replaces was stopped after the open and may have written past the cut.
    func cutAgain() {
        if let cut { _ = ftruncate(fd, off_t(cut)) }
    }

    static func writeFailure(_ err: Int32) -> TransferFailure {
        .writeError(errno: err, message: String(cString: strerror(err)))
    }
}
