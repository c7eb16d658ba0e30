import CFuse
import Foundation
import Glibc
import Synchronization

/// The pending answer to one `read` request; it must be answered exactly once.
///
/// A reply may be sent later and from another thread (a blocking `wait` read
/// keeps its reply until the task ends). Like fuser's reply objects, one
/// dropped without an answer answers EIO and logs, so a forgotten reply shows
/// up as an error instead of a process hung in the kernel.
public final class ReadReply: @unchecked Sendable {
    private let request: fuse_req_t
    private let lock = NSLock()
    private var answered = false
    private var interruptToken: UInt?
    /// The reader's file is `O_NONBLOCK` (the kernel sends the open file's
    /// flags with each read, so a later `fcntl` counts): a read that would
    /// wait answers EAGAIN instead, as a pipe's does, so an event loop
    /// that reads until EAGAIN never blocks on it.
    public let nonBlocking: Bool
    /// The thread that reads; asked of the kernel's request only when
    /// wanted (a refusal's log line), not for every read.
    public var caller: RequestCaller { RequestCaller(request) }

    init(_ request: fuse_req_t, nonBlocking: Bool = false) {
        self.request = request
        self.nonBlocking = nonBlocking
    }

    deinit {
        if !answered {
            FileHandle.standardError.write(Data("downloadfs: a read request was dropped without a reply; answering EIO\n".utf8))
            fuse_reply_err(request, EIO)
        }
        if let token = interruptToken { InterruptRegistry.shared.remove(token) }
    }

    /// Claims the right to answer; false when someone already did.
    private func claim() -> Bool {
        lock.lock()
        if answered {
            lock.unlock()
            return false
        }
        answered = true
        let token = interruptToken
        interruptToken = nil
        lock.unlock()
        // The registry's lock is not taken under ours here: a late interrupt
        // finds no handler, or one whose answer loses to this one.
        if let token { InterruptRegistry.shared.remove(token) }
        return true
    }

    /// Answers with a copy of `bytes`.
    @discardableResult
    public func bytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard claim() else { return false }
        ReadReply.noteFailure(fuse_reply_buf(request, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count))
        return true
    }

    @discardableResult
    public func bytes(_ array: [UInt8]) -> Bool {
        array.withUnsafeBytes { self.bytes($0) }
    }

    /// Answers with `size` bytes of an open file, spliced by libfuse.
    ///
    /// Whatever `fuse_reply_data` returns, the request is gone afterwards:
    /// below zero the answer could not be written to /dev/fuse (the reader
    /// was interrupted, or the connection was aborted by `umount -f`) and
    /// libfuse freed the request; above zero the file could not be read and
    /// libfuse itself answered with that error. Answering again would touch
    /// freed memory (issue 8: SIGSEGV under `umount -f`), so we only log.
    @discardableResult
    public func file(_ fd: Int32, offset: Int64, size: Int) -> Bool {
        guard claim() else { return false }
        ReadReply.noteFailure(cfuse_reply_fd(request, fd, off_t(offset), size))
        return true
    }

    @discardableResult
    public func error(_ errno: Errno) -> Bool {
        guard claim() else { return false }
        ReadReply.noteFailure(fuse_reply_err(request, errno.code))
        return true
    }

    /// Set once the first failed reply has been logged.
    private static let failureLogged = Atomic<Bool>(false)

    /// Logs the first reply libfuse could not deliver (`rc` is what a
    /// fuse_reply_* call returned). Never answers again: every fuse_reply_*
    /// has consumed its request, whatever it returned. Only the first is
    /// logged, since an aborted connection fails every reply in flight.
    private static func noteFailure(_ rc: Int32) {
        guard rc != 0, !failureLogged.exchange(true, ordering: .relaxed) else { return }
        let reason = rc < 0
            ? "the answer could not be sent (\(String(cString: strerror(-rc)))); the reader was interrupted or the mount was aborted"
            : "the file could not be read (\(String(cString: strerror(rc)))); libfuse answered that error"
        FileHandle.standardError.write(Data("downloadfs: a read reply failed: \(reason) (later failures are not logged)\n".utf8))
    }

    /// Runs `handler` (on another thread) if the reader is interrupted by a
    /// signal before we answer. The handler usually answers `.interrupted`.
    ///
    /// Does nothing once the request is answered: the answer freed it. The
    /// lock is held across `fuse_req_interrupt_func` so no answer (which
    /// must `claim` first) can free the request under it; that call never
    /// replies itself (the callback hands off to another thread).
    public func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let token = InterruptRegistry.shared.add(handler)
        lock.lock()
        if answered {
            lock.unlock()
            InterruptRegistry.shared.remove(token)
            return
        }
        interruptToken = token
        fuse_req_interrupt_func(request, { _, data in
            let token = UInt(bitPattern: data)
            // libfuse may call this while holding the request's lock, even from
            // inside fuse_req_interrupt_func; replying there would free the
            // request under its own lock, so answer from another thread.
            if let handler = InterruptRegistry.shared.take(token) {
                DispatchQueue.global().async { handler() }
            }
        }, UnsafeMutableRawPointer(bitPattern: token))
        lock.unlock()
    }

}
