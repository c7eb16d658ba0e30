/// Work a transition asks the daemon to do once it is committed; the loop's
/// adapters (engine, disk, FUSE waiters, hook) carry each one out.
public enum TaskEffect: Sendable, Equatable {
    /// Start attempt `serial` from `stored` (R51: the partial data is cut
    /// back to `stored.offset`, R52: the request resumes from there).
    case startTransfer(serial: UInt64, stored: StoredProgress)
    /// Stop the running transfer; it reports `.finished(.stopped)` after a flush.
    case stopTransfer(serial: UInt64)
    /// Start attempt `serial` fetching only what readers wait for (R23),
    /// the task's state left as it is.
    case startReading(serial: UInt64, stored: StoredProgress)
    /// Have the running attempt fetch what readers wait for (R23).
    case fetchReads
    /// Answer every reader waiting for bytes with EIO: they will not come
    /// (the task failed or is gone, a reading attempt failed).
    case failReads
    /// Have every reader waiting for bytes look again: the task completed.
    case releaseReads
    /// Delete STATE/partial/<id>.
    case deletePartial
    /// Delete the finished file STATE/files/<name> (R32).
    case deleteFinished(name: String)
    /// Compute the digest of the partial data (R56) off the loop.
    case verify(serial: UInt64, checksum: Checksum)
    /// Move the whole partial file to STATE/files/<name>, mtime and mode set,
    /// off the loop (R42, R43).
    case finalize(serial: UInt64, name: String)
    /// A forgotten task's file stays (R34): its origin goes onto the file
    /// itself (the extended attributes R41 names), as nothing else keeps it.
    case keepFile(name: String)
    /// Answer `wait` readers with this text (R22).
    case wake(String)
    /// Run the on-complete hook (R33).
    case runHook
}
