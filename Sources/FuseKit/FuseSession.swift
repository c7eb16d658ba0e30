import CFuse
import Glibc

/// One mounted FUSE filesystem, set up and torn down in libfuse's order:
/// session → signal handlers → mount → loop → unmount → remove handlers →
/// destroy (libfuse's example/hello_ll.c).
public final class FuseSession: @unchecked Sendable {
    private let bridge: LowLevelBridge
    private var session: OpaquePointer?
    private var operations: fuse_lowlevel_ops
    private var mounted = false

    /// `options` are mount options without "-o" (e.g. "fsname=downloadfs").
    public init(operations: FileSystemOperations, options: [String]) throws(FuseError) {
        bridge = LowLevelBridge(operations: operations)
        self.operations = LowLevelBridge.makeOperations()
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
            throw FuseError("could not start a FUSE session (bad -o option?)")
        }
        if fuse_set_signal_handlers(session) != 0 {
            fuse_session_destroy(session)
            session = nil
            throw FuseError("could not install signal handlers")
        }
    }

    public func mount(at mountpoint: String) throws(FuseError) {
        guard fuse_session_mount(session, mountpoint) == 0 else {
            throw FuseError("could not mount at \(mountpoint) (see the message above)")
        }
        mounted = true
    }

    /// Serves requests on libfuse's worker threads until unmounted or signalled.
    public func run() -> Int32 {
        cfuse_session_loop_mt(session, 10)
    }

    public func teardown() {
        guard let session else { return }
        if mounted {
            fuse_session_unmount(session)
            mounted = false
        }
        fuse_remove_signal_handlers(session)
        fuse_session_destroy(session)
        self.session = nil
    }

    deinit { teardown() }
}
