import CLinux
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
    /// What the request's ranges lost because the file no longer holds
    /// them (deleted or cut under the daemon): the attempt builds on its
    /// `ranges` instead, and the task log gets its line.
    let correction: PartialDataCorrection?

    /// Opens the data file for `request` and cuts it as R51 says. A task
    /// that holds bytes opens its file without creating it and checks its
    /// size (`PartialDataCorrection`, the mount's rule): a file deleted
    /// under the daemon used to be created anew and its zeros trusted for
    /// the checkpoint. With nothing trusted, O_TRUNC says so at the open
    /// (free for a file the open creates) instead of an ftruncate per new task.
    static func open(for request: TransferRequest) throws(TransferFailure) -> DataFile {
        var correction: PartialDataCorrection?
        var fd: Int32 = -1
        if !request.ranges.isEmpty {
            fd = Glibc.open(request.partialPath, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 || errno == ENOENT else { throw writeFailure(errno) }
            var info = stat()
            let size: Int64? = fd < 0 ? nil : fstat(fd, &info) == 0 ? Int64(info.st_size) : .max
            correction = PartialDataCorrection.of(request.ranges, partialSize: size)
        }
        let held = correction.map { request.held(of: $0.ranges) } ?? request.held
        let cut = request.known.total == nil ? held.prefixEnd : nil
        if fd < 0 {
            fd = Glibc.open(request.partialPath, O_WRONLY | O_CREAT | O_CLOEXEC | (cut == 0 ? O_TRUNC : 0), 0o644)
            guard fd >= 0 else { throw writeFailure(errno) }
        }
        if let cut, cut > 0, ftruncate(fd, off_t(cut)) != 0 {
            let err = errno
            close(fd)
            throw writeFailure(err)
        }
        return DataFile(fd: fd, cut: cut, correction: correction)
    }

    /// Cuts the file again: an attempt of the same task that this one
    /// replaces was stopped after the open and may have written past the cut.
    func cutAgain() {
        if let cut { _ = ftruncate(fd, off_t(cut)) }
    }

    /// Gives back the blocks of the file at `fd` that hold no byte of
    /// `trusted` (R51: bytes past the checkpoint are not the task's): cut
    /// after the last trusted byte, holes punched between trusted ranges.
    /// For a task that failed on a full disk (R54), whose untrusted bytes
    /// kept the disk full, so nothing else could proceed. A later attempt
    /// extends the file again (`TaskDownload.prepare`). Best effort: a
    /// filesystem that cannot punch keeps the holes' blocks.
    static func dropUntrusted(_ fd: Int32, keeping trusted: ByteRanges) {
        let end = trusted.ranges.last?.upperBound ?? 0
        _ = ftruncate(fd, off_t(end))
        for gap in trusted.gaps(in: 0..<end) {
            guard clinux_punch_hole(fd, gap.lowerBound, Int64(gap.count)) == 0 else { return }
        }
    }

    static func writeFailure(_ err: Int32) -> TransferFailure {
        .writeError(errno: err, message: String(cString: strerror(err)))
    }
}
