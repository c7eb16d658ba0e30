import CCurl
import Glibc
import Synchronization

/// The curl easy handles and staging buffers that ended transfers leave
/// behind, kept for the next ones.
///
/// A new handle per connection made curl allocate its 2 MiB receive buffer
/// (`EasyTransfer.readBufferSize`) each time: an `mmap`, a page fault for
/// each page the body filled and an `munmap` with its TLB shootdown, about
/// a fifth of the engine thread's time with 1,000 files of 64 KiB. A handle
/// reset with `curl_easy_reset` keeps its buffer, and the pages a small
/// body touched stay mapped. Only a handle whose transfer brought at most
/// `keptBelow` bytes is kept (so the pool holds at most 8 MiB of curl's
/// pages, and 4 MiB of staging buffers), and only one its transfer leaves
/// fit for another (`EasyTransfer`): none that used cookies
/// (`curl_easy_reset` keeps the cookies it was given, which must never
/// reach another task), none whose transfer curl ended with an error.
final class TransferPool: Sendable {
    /// Handles and buffers kept at most (as many as connections run at once
    /// with many small files).
    static let keep = 32
    /// A handle whose transfer received more than this is not kept.
    static let keptBelow: Int64 = 256 << 10

    private struct Free: @unchecked Sendable {
        var handles: [UnsafeMutableRawPointer] = []
        var buffers: [UnsafeMutableRawPointer] = []
    }

    private let free = Mutex(Free())

    init() {}

    deinit {
        free.withLock { free in
            for handle in free.handles { curl_easy_cleanup(handle) }
            for buffer in free.buffers { buffer.deallocate() }
        }
    }

    /// How many handles and buffers are kept now.
    var kept: (handles: Int, buffers: Int) { free.withLock { ($0.handles.count, $0.buffers.count) } }

    /// A handle with curl's default options: a kept one, else a new one;
    /// and whether it was kept.
    func handle() -> (UnsafeMutableRawPointer, kept: Bool)? {
        if let kept = free.withLock({ $0.handles.popLast() }) { return (kept, true) }
        return curl_easy_init().map { ($0, false) }
    }

    /// Runs `setOptions` on `handle`; when it was `kept` and curl refused
    /// an option, the handle is thrown away and `setOptions` runs again on
    /// a new one: a handle left unfit by the transfer before fails no
    /// transfer of its own. The handle to use, and curl's answer.
    func configure(_ handle: UnsafeMutableRawPointer, kept: Bool,
                   _ setOptions: (UnsafeMutableRawPointer) -> CURLcode) -> (UnsafeMutableRawPointer, CURLcode) {
        let rc = setOptions(handle)
        guard rc != CURLE_OK, kept, let fresh = curl_easy_init() else { return (handle, rc) }
        curl_easy_cleanup(handle)
        return (fresh, setOptions(fresh))
    }

    /// Takes back the handle of a transfer no multi handle holds any more:
    /// kept when `reusable` and it received at most `keptBelow` bytes.
    func giveBack(_ handle: UnsafeMutableRawPointer, received: Int64, reusable: Bool) {
        guard received <= Self.keptBelow, reusable else { return curl_easy_cleanup(handle) }
        // Drops every option (callbacks, their pointers, header lists): the
        // handle holds nothing of the transfer that ended.
        curl_easy_reset(handle)
        let kept = free.withLock { free -> Bool in
            guard free.handles.count < Self.keep else { return false }
            free.handles.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    /// A staging buffer of `EasyTransfer.stagingCapacity` bytes, page aligned.
    func buffer() -> UnsafeMutableRawPointer {
        free.withLock { $0.buffers.popLast() }
            ?? UnsafeMutableRawPointer.allocate(byteCount: EasyTransfer.stagingCapacity, alignment: 4096)
    }

    func giveBack(_ buffer: UnsafeMutableRawPointer) {
        let kept = free.withLock { free -> Bool in
            guard free.buffers.count < Self.keep else { return false }
            free.buffers.append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }
}
