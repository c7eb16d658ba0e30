import CFuse
import Foundation
import Glibc

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

    init(_ request: fuse_req_t) { self.request = request }

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
        defer { lock.unlock() }
        if answered { return false }
        answered = true
        if let token = interruptToken {
            InterruptRegistry.shared.remove(token)
            interruptToken = nil
        }
        return true
    }

    /// Answers with a copy of `bytes`.
    @discardableResult
    public func bytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard claim() else { return false }
        fuse_reply_buf(request, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
        return true
    }

    @discardableResult
    public func bytes(_ array: [UInt8]) -> Bool {
        array.withUnsafeBytes { self.bytes($0) }
    }

    /// Answers with `size` bytes of an open file, spliced by libfuse.
    @discardableResult
    public func file(_ fd: Int32, offset: Int64, size: Int) -> Bool {
        guard claim() else { return false }
        let rc = cfuse_reply_fd(request, fd, off_t(offset), size)
        if rc != 0 {
            // fuse_reply_data failed before sending (bad fd or splice error): the
            // request still needs an answer.
            fuse_reply_err(request, rc < 0 ? -rc : EIO)
        }
        return true
    }

    @discardableResult
    public func error(_ errno: Errno) -> Bool {
        guard claim() else { return false }
        fuse_reply_err(request, errno.code)
        return true
    }

    /// Runs `handler` (on another thread) if the reader is interrupted by a
    /// signal before we answer. The handler usually answers `.interrupted`.
    public func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let token = InterruptRegistry.shared.add(handler)
        lock.lock()
        interruptToken = token
        lock.unlock()
        fuse_req_interrupt_func(request, { _, data in
            let token = UInt(bitPattern: data)
            // libfuse may call this while holding the request's lock, even from
            // inside fuse_req_interrupt_func; replying there would free the
            // request under its own lock, so answer from another thread.
            if let handler = InterruptRegistry.shared.take(token) {
                DispatchQueue.global().async { handler() }
            }
        }, UnsafeMutableRawPointer(bitPattern: token))
    }
}
