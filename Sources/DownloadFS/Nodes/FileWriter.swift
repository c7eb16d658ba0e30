import FuseKit

/// A handle that takes writes; returns how many bytes it took.
protocol FileWriter: OpenFile {
    func write(_ data: UnsafeRawBufferPointer, offset: Int64) throws(Errno) -> Int
}
