import FuseKit

/// A handle with something to say at every close(2): its error is what
/// close returns (`queue/new` takes a final line without a newline, R11).
/// The kernel is told to skip FLUSH for handles that are not flushers.
protocol FileFlusher: OpenFile {
    /// `caller` closed the file; a log line about a refusal names it (`RefusalLogLine`).
    func flush(caller: RequestCaller) throws(Errno)
}
