import CFuse
import CLinux
import Foundation

/// Directory listings snapshotted at `opendir`, served by offset in `readdir`.
///
/// The kernel reads a directory in several calls, each naming the offset of
/// the next entry; a listing that changed between calls (a task added or
/// removed) would skip or repeat names. A snapshot per open handle keeps one
/// `ls` consistent.
final class DirectoryBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var next: UInt64 = 1
    private var listings: [UInt64: DirectoryListing] = [:]

    func open(_ entries: DirectoryListing) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let handle = next
        next += 1
        listings[handle] = entries
        return handle
    }

    func release(_ handle: UInt64) {
        lock.lock()
        let listing = listings.removeValue(forKey: handle)
        lock.unlock()
        // A listing of a million names (`files/` over a million plain files,
        // `queue/` over a million tasks) is tens of MiB; freed, glibc keeps
        // them in its heap. Give them back.
        if let listing, listing.count >= Self.largeListing {
            _ = consume listing
            clinux_malloc_trim()
        }
    }

    /// Entries from which a released listing is worth a `malloc_trim`
    /// (a few milliseconds, against 15–100 MiB kept).
    private static let largeListing = 100_000

    /// Fills a reply buffer of at most `size` bytes with entries from `offset`.
    func fill(_ handle: UInt64, request: fuse_req_t, size: Int, offset: Int64) -> [UInt8]? {
        lock.lock()
        let entries = listings[handle]
        lock.unlock()
        guard let entries else { return nil }
        var buffer = [UInt8](repeating: 0, count: size)
        var used = 0
        var index = Int(offset)
        while index < entries.count {
            let needed = buffer.withUnsafeMutableBufferPointer { buf -> Int in
                entries.withEntry(index) { name, inode, isDirectory in
                    var st = stat()
                    st.st_ino = ino_t(inode)
                    st.st_mode = isDirectory ? S_IFDIR : S_IFREG
                    return fuse_add_direntry(request, UnsafeMutableRawPointer(buf.baseAddress!).advanced(by: used)
                        .assumingMemoryBound(to: CChar.self), size - used, name, &st, off_t(index + 1))
                }
            }
            if needed > size - used { break }
            used += needed
            index += 1
        }
        buffer.removeSubrange(used...)
        return buffer
    }
}
