#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RPCCore

/// The RPC door's transport (R70): aria2's JSON-RPC over HTTP POST, GET
/// and WebSocket at `/jsonrpc`, on SwiftNIO.
///
/// It knows nothing of what the calls mean: each request body (or
/// WebSocket message) goes to `call` (the dispatcher, which parses it),
/// whose reply is sent back as aria2c 1.36 sends it (the HTTP status from
/// the error the reply says it carries, `RPCReplyStatus`). One event-loop
/// thread serves every connection; a reply, which does blocking I/O on the
/// mount, is worked out on a small thread pool, except for a call that is
/// brief (`Aria2Call.isBrief`: one task's attributes, which the daemon
/// answers from memory in tens of microseconds): that one is answered on
/// the loop, which spares two thread wake-ups per call, and those are what
/// a call waits for on a machine busy downloading.
///
/// Lifecycle: `start()` binds or throws the sentence to print; `stop()`
/// closes everything and may be called from any thread (a reply on the
/// pool included, for `aria2.shutdown`), any number of times;
/// `waitUntilStopped()` returns once the threads are gone.
public final class RPCServer: Sendable {
    private let configuration: RPCServerConfiguration
    private let call: @Sendable ([UInt8]) -> Aria2Call
    private let clients = WebSocketClients()
    private let state = NIOLockedValueBox(State.created)
    /// true once `stop()` has finished (or `start()` failed).
    private let stopped = ConditionLock(value: false)

    /// Threads the pool works out replies on: a few calls may wait on the
    /// mount at once (a slow `status` read) without stalling the others.
    static let respondThreads = 4
    /// How long `stop()` waits for calls being answered: a reply normally
    /// leaves in milliseconds; a call stuck on a hung mount is given up.
    static let answerLimit: DispatchTimeInterval = .seconds(2)
    /// Bytes a client may leave unread before it is not read from (its
    /// calls wait) and a broadcast closes it rather than queue more.
    static let writeBufferHighWaterMark = 16 * 1024 * 1024

    private enum State {
        case created
        /// Binding; `stop()` during it is remembered and done at its end.
        case starting(stopRequested: Bool)
        case running(Resources)
        case stopping
        case stopped
    }

    private struct Resources: Sendable {
        let group: MultiThreadedEventLoopGroup
        let threadPool: NIOThreadPool
        let calls: RPCCallRunner
        let listeners: [any Channel]
        let addresses: [String]
        let port: Int
    }

    public init(configuration: RPCServerConfiguration, call: @escaping @Sendable ([UInt8]) -> Aria2Call) {
        self.configuration = configuration
        self.call = call
    }

    /// The port listened on once started (the kernel's pick when the
    /// configuration asked for 0).
    public var localPort: Int? {
        state.withLockedValue { if case .running(let resources) = $0 { resources.port } else { nil } }
    }

    /// The addresses listened on once started (`127.0.0.1:6800`,
    /// `[::1]:6800`), for the line the command prints: ::1 is missing when
    /// the machine has no IPv6.
    public var localAddresses: [String] {
        state.withLockedValue { if case .running(let resources) = $0 { resources.addresses } else { [] } }
    }

    /// Open WebSocket connections (tests wait on it).
    var webSocketClientCount: Int { clients.count }

    /// Binds and starts serving. Call once.
    public func start() throws(RPCServerError) {
        let proceed = state.withLockedValue { state -> Bool in
            guard case .created = state else { return false }
            state = .starting(stopRequested: false)
            return true
        }
        guard proceed else { throw RPCServerError("the RPC server was already started") }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threadPool = NIOThreadPool(numberOfThreads: Self.respondThreads)
        threadPool.start()
        let calls = RPCCallRunner(threadPool: threadPool, call: call)
        var listeners: [any Channel] = []
        var addresses: [String] = []
        var port = configuration.port
        // The IPv4 address first: it must bind; the IPv6 one may be missing
        // from the machine. With port 0 the second binds the port the first
        // was given, so both families reach the same server.
        let hosts = configuration.listenAll ? [("0.0.0.0", false), ("::", true)] : [("127.0.0.1", false), ("::1", true)]
        do {
            for (host, isIPv6) in hosts {
                do {
                    let channel = try bootstrap(group: group, calls: calls, ipv6Only: isIPv6)
                        .bind(host: host, port: port).wait()
                    listeners.append(channel)
                    port = channel.localAddress?.port ?? port
                    addresses.append(isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)")
                } catch where isIPv6 && !Self.meansInUse(error) {
                    // No IPv6 here (EADDRNOTAVAIL, EAFNOSUPPORT, or a
                    // resolver error): IPv4 alone serves, and
                    // `localAddresses` says so. In use is an error still:
                    // clients reaching `localhost` as ::1 would talk to
                    // another program.
                    continue
                }
            }
        } catch {
            for channel in listeners { channel.close(promise: nil) }
            Self.shutDown(group: group, threadPool: threadPool) {}
            state.withLockedValue { $0 = .stopped }
            markStopped()
            throw Self.sentence(for: error, port: port, listenAll: configuration.listenAll)
        }
        let stopRequested = state.withLockedValue { state -> Bool in
            let requested = if case .starting(let requested) = state { requested } else { false }
            state = .running(Resources(group: group, threadPool: threadPool, calls: calls, listeners: listeners,
                                       addresses: addresses, port: port))
            return requested
        }
        if stopRequested { stop() }
    }

    /// Sends one text frame to every WebSocket client (R73); clients that
    /// connect later do not get it.
    public func broadcast(_ text: [UInt8]) {
        clients.broadcast(text)
    }

    /// Closes the listeners, lets every call being answered send its reply
    /// (at most `answerLimit`), then closes every connection and ends the
    /// threads. Returns at once, so a call may stop the server that answers
    /// it; `waitUntilStopped()` waits for the end.
    public func stop() {
        let resources = state.withLockedValue { state -> Resources? in
            switch state {
            case .running(let resources):
                state = .stopping
                return resources
            case .created:
                state = .stopped
                return nil
            case .starting:
                state = .starting(stopRequested: true)
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        guard let resources else {
            if case .stopped = state.withLockedValue({ $0 }) { markStopped() }
            return
        }
        for listener in resources.listeners { listener.close(promise: nil) }
        resources.calls.whenAllAnswered(within: Self.answerLimit) { [self] in
            // WebSocket clients get a close frame (1001 going away) before
            // the loop's shutdown closes every socket.
            clients.closeAll()
            Self.shutDown(group: resources.group, threadPool: resources.threadPool) { [self] in
                state.withLockedValue { $0 = .stopped }
                markStopped()
            }
        }
    }

    /// Blocks until `stop()` has finished. Never call it on the pool's
    /// threads (from a reply being worked out): it would wait for itself.
    public func waitUntilStopped() {
        stopped.lock(whenValue: true)
        stopped.unlock()
    }

    private func markStopped() {
        stopped.lock()
        stopped.unlock(withValue: true)
    }

    /// Asynchronous, so that `stop()` called from a pool thread does not
    /// join itself: the group first (no new calls start), then the pool.
    private static func shutDown(
        group: MultiThreadedEventLoopGroup, threadPool: NIOThreadPool, then done: @escaping @Sendable () -> Void
    ) {
        group.shutdownGracefully(queue: .global()) { _ in
            threadPool.shutdownGracefully(queue: .global()) { _ in done() }
        }
    }

    private func bootstrap(group: MultiThreadedEventLoopGroup, calls: RPCCallRunner, ipv6Only: Bool) -> ServerBootstrap {
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(
                low: Self.writeBufferHighWaterMark / 2, high: Self.writeBufferHighWaterMark))
        if ipv6Only {
            // Without it `::` also claims IPv4 on Linux and collides with
            // the 0.0.0.0 listener on the same port.
            bootstrap = bootstrap.serverChannelOption(
                ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 1)
        }
        let configuration = self.configuration
        let clients = self.clients
        return bootstrap.childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try RPCConnectionPipeline(
                    configuration: configuration, calls: calls, clients: clients
                ).configure(channel)
            }
        }
    }

    private static func meansInUse(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == EADDRINUSE
    }

    private static func sentence(for error: any Error, port: Int, listenAll: Bool) -> RPCServerError {
        let addresses = listenAll ? "0.0.0.0 and ::" : "127.0.0.1 and ::1"
        if let error = error as? IOError {
            if error.errnoCode == EADDRINUSE {
                return RPCServerError("port \(port) is in use: another program (an aria2c, another downloadfs rpc?) listens on it; choose another with --rpc-listen-port")
            }
            if error.errnoCode == EACCES {
                return RPCServerError("port \(port) needs privileges to listen on (ports under 1024 are root's); choose another with --rpc-listen-port")
            }
            return RPCServerError("cannot listen on port \(port) of \(addresses): \(String(cString: strerror(error.errnoCode)))")
        }
        return RPCServerError("cannot listen on port \(port) of \(addresses): \(error)")
    }
}
