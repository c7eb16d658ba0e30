import CFuse
import Foundation
import Glibc
import Threads

/// One mounted FUSE filesystem, set up and torn down in libfuse's order:
/// session → signal handlers → mount → loop → unmount → remove handlers →
/// destroy (libfuse's example/hello_ll.c).
///
/// From `init` until `releaseHeldMessages()` libfuse's log lines are held
/// back rather than printed: libfuse reports a refused option or a failed
/// handshake (which happens inside `run`) only by logging it, and the
/// daemon turns those lines into its one-line failure (R1, R2).
public final class FuseSession: @unchecked Sendable {
    private let bridge: LowLevelBridge
    private var session: OpaquePointer?
    private var operations: fuse_lowlevel_ops
    private var mounted = false
    /// Tells the kernel when cached names and attributes change; runs from
    /// the session's creation until the loop has ended.
    public let notifier = KernelNotifier()

    /// `options` are mount options without "-o" (e.g. "fsname=downloadfs");
    /// `maxRead` is the value of the `max_read=` among them, if any.
    public init(operations: FileSystemOperations, options: [String], maxRead: UInt32? = nil) throws(FuseError) {
        bridge = LowLevelBridge(operations: operations, maxRead: maxRead ?? 0)
        self.operations = LowLevelBridge.makeOperations()
        cfuse_log_hold()
        var argv = ["downloadfs"]
        for option in options { argv += ["-o", option] }
        let cArgs = argv.map { strdup($0) }
        defer { cArgs.forEach { free($0) } }
        var pointers: [UnsafeMutablePointer<CChar>?] = cArgs + [nil]
        let userdata = Unmanaged.passUnretained(bridge).toOpaque()
        session = pointers.withUnsafeMutableBufferPointer { argvBuffer in
            withUnsafePointer(to: &self.operations) { ops in
                cfuse_session_new(Int32(argv.count), argvBuffer.baseAddress, ops, userdata)
            }
        }
        guard session != nil else {
            // libfuse said why, e.g. "fuse: unknown option(s): `-o bogus'".
            throw FuseError(FuseSession.lastLine(FuseSession.releaseHeldMessages())
                ?? "could not start a FUSE session")
        }
        if fuse_set_signal_handlers(session) != 0 {
            fuse_session_destroy(session)
            session = nil
            _ = FuseSession.releaseHeldMessages()
            throw FuseError("could not install signal handlers")
        }
        do { try notifier.start(session!) } catch {
            fuse_remove_signal_handlers(session)
            fuse_session_destroy(session)
            session = nil
            throw FuseError(error.message)
        }
        bridge.passthrough.attach(session)
    }

    /// Mounts (through fusermount3); on failure the error carries what
    /// fusermount3 or libfuse said, e.g. "fusermount3: mount failed: …".
    public func mount(at mountpoint: String) throws(FuseError) {
        var captured = [CChar](repeating: 0, count: 2048)
        let rc = cfuse_session_mount_capturing(session, mountpoint, &captured, captured.count)
        let helperSaid = FuseSession.text(captured)
        guard rc == 0 else {
            let libfuseSaid = FuseSession.releaseHeldMessages()
            let reason = FuseSession.lastLine(helperSaid) ?? FuseSession.lastLine(libfuseSaid)
            throw FuseError(reason ?? "could not mount at \(mountpoint)")
        }
        // A successful fusermount3 says nothing; if it did, keep it visible.
        if !helperSaid.isEmpty { FileHandle.standardError.write(Data(helperSaid.utf8)) }
        mounted = true
        // Without the hooks, opens are simply served through the daemon.
        _ = cfuse_passthrough_install(session)
    }

    /// Once the mount answers (INIT is done): lets the kernel read files
    /// opened with a backing descriptor by itself. nil when it will, else
    /// why it will not (the daemon logs it; reads then come to the daemon).
    public func enablePassthrough() -> String? {
        bridge.passthrough.enable()
    }

    /// Serves requests on libfuse's worker threads until unmounted,
    /// signalled, or the kernel's handshake (INIT) fails.
    public func run() -> Int32 {
        cfuse_session_loop_mt(session, 10)
    }

    /// Ends holding libfuse's log lines back; returns those held so far.
    /// Later lines go straight to stderr. Safe from any thread.
    @discardableResult
    public static func releaseHeldMessages() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        _ = cfuse_log_release(&buffer, buffer.count)
        return text(buffer)
    }

    /// A NUL-terminated C buffer as text (bytes that are not UTF-8 repaired).
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The last non-blank line of libfuse's output, without its "fuse: "
    /// prefix; nil when there is none.
    public static func lastLine(_ text: String) -> String? {
        guard let line = text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            .last(where: { !$0.isEmpty }) else { return nil }
        return line.hasPrefix("fuse: ") ? String(line.dropFirst("fuse: ".count)) : line
    }

    /// Ends cache notifications: what is still queued is dropped (the mount
    /// is going away). Called once the loop has ended, before the session is
    /// torn down; true when the notifier thread has ended.
    @discardableResult
    public func stopNotifications() -> Bool {
        notifier.stop(waitingUpTo: 2)
    }

    public func teardown() {
        guard let session else { return }
        // A notifier still inside the kernel uses the session: it is then
        // left alive (the process is about to exit) rather than freed under it.
        let notifierEnded = stopNotifications()
        if mounted {
            fuse_session_unmount(session)
            mounted = false
        }
        fuse_remove_signal_handlers(session)
        if notifierEnded { fuse_session_destroy(session) }
        self.session = nil
    }

    deinit { teardown() }
}
