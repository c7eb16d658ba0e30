import CLinux
import DownloadFSCore
import FuseKit
import Glibc

/// An open finished file: its descriptor, opened at `open`, and its size,
/// which never changes. Reads need nothing else (no task lookup): a file
/// removed or renamed while open stays readable, as on any filesystem.
/// Where the kernel can, it reads the descriptor itself (passthrough) and
/// `read` is never called; where it cannot, each read is spliced from the
/// descriptor and the backing pages it served are let go behind the reader
/// (`BackingCacheRelease`): the kernel keeps them in this file's cache.
final class FinishedFileHandle: FileReader, FileReleaser {
    private let descriptor: Int32
    private let size: Int64
    var caching: FileCaching { .keep }
    var backing: Int32? { descriptor }

    init(descriptor: Int32, size: Int64) {
        self.descriptor = descriptor
        self.size = size
    }

    func read(size wanted: Int, offset: Int64, reply: ReadReply) {
        Self.serve(descriptor, size: size, wanted: wanted, offset: offset, caching: caching, reply: reply)
    }

    /// Answers a read of a finished file of `size` bytes open at `fd`: the
    /// range spliced, then the backing pages behind the reader let go where
    /// the kernel keeps what it read. Also a completed task's data file's
    /// (`TaskDataHandle`).
    static func serve(_ fd: Int32, size: Int64, wanted: Int, offset: Int64, caching: FileCaching, reply: ReadReply) {
        guard offset < size else { reply.bytes([]); return }
        let served = min(wanted, Int(size - offset))
        reply.file(fd, offset: offset, size: served)
        if let behind = BackingCacheRelease.afterServing(offset: offset, size: Int64(served), kernelKeeps: caching == .keep) {
            _ = clinux_drop_cached(fd, behind.lowerBound, Int64(behind.count))
        }
    }

    func release() { close(descriptor) }
}
