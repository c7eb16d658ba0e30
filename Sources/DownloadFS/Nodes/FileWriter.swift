import FuseKit

/// A handle that takes writes; returns how many bytes it took. A refusal's
/// log line names `caller`, the thread that wrote (`RefusalLogLine`), so
/// each of several clients refused at once finds its own reason.
protocol FileWriter: OpenFile {
    func write(_ data: UnsafeRawBufferPointer, offset: Int64, caller: RequestCaller) throws(Errno) -> Int
}
