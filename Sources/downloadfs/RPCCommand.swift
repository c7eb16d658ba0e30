import ArgumentParser
import DownloadFS
import DownloadFSCore
import Foundation
import Glibc
import RPCCore
import RPCServer
import Synchronization

/// `downloadfs rpc MOUNTPOINT` (R70–R73): aria2's JSON-RPC for a mount, so
/// browser extensions, AriaNg and aria2p drive it unchanged. A client of
/// the mount: every call is a read or write of the mount's files
/// (`MountFiles`), and notifications come from `MOUNT/events`.
struct RPCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Serve aria2's JSON-RPC for a mount, so aria2 clients drive it.",
        discussion: """
            Serves aria2's JSON-RPC 2.0 at http://127.0.0.1:PORT/jsonrpc (POST, GET and
            WebSocket), as aria2c --enable-rpc does, until SIGTERM, SIGINT or
            aria2.shutdown. Everything it does goes through the mount's files, so it
            needs no access to the state dir and can be stopped or restarted at any
            time without touching a download. mount --rpc starts it with the mount.

            Example:
              downloadfs rpc ~/dl --rpc-secret-file ~/.config/downloadfs/secret
            """
    )

    @Argument(help: "The downloadfs mount to serve.")
    var mountpoint: String

    @OptionGroup var options: RPCOptions

    /// Started by `mount --rpc`: `aria2.shutdown` also unmounts (R72), by
    /// asking the daemon that started us to stop, as SIGTERM does (R3).
    @Flag(name: .customLong(String(MountDoorProcess.marker.dropFirst(2))), help: .private)
    var stopMountOnShutdown = false

    /// How often the door looks whether its mount is still there.
    static let mountCheckInterval: DispatchTimeInterval = .seconds(2)

    func run() throws {
        let root = MountPreflight.absolute(mountpoint)
        // Started by `mount --rpc`: its failure to start is the mount's to
        // say (`RPCChild` reads it on our stdout), and its shutdown unmounts.
        let stopMount = stopMountOnShutdown
        func failure(_ error: ClientError) -> ExitCode {
            guard stopMount else { return error.exit() }
            FileHandle.standardOutput.write(Data((error.description + "\n").utf8))
            return ExitCode(1)
        }
        guard MountTable.downloadfsMounts().contains(where: { $0.mountpoint == root }) else {
            throw failure(ClientError("rpc: \(root) is not a downloadfs mount (mount one with downloadfs mount DIR)"))
        }
        let secret: String?
        do { secret = try options.resolvedSecret() } catch { throw failure(error) }

        let serverBox = Mutex<RPCServer?>(nil)
        let stop: @Sendable () -> Void = { serverBox.withLock { $0 }?.stop() }
        let dispatcher = Aria2Dispatcher(mount: MountFiles(path: root), secret: secret, version: ProductVersion.current,
                                         onShutdown: { _ in
                                             // The server sends this call's "OK" before it closes.
                                             if stopMount { kill(getppid(), SIGTERM) }
                                             stop()
                                         })
        let configuration = RPCServerConfiguration(port: options.port, listenAll: options.listenAll,
                                                   allowOriginAll: options.allowOriginAll, hasSecret: secret != nil,
                                                   maxRequestBytes: 2 << 20)
        let server = RPCServer(configuration: configuration, call: { dispatcher.call($0) })
        serverBox.withLock { $0 = server }

        // Opened before the port, so a client that connects sees every change from then on.
        let notifications = Mutex(Aria2NotificationFeed())
        let events = EventFollower(mount: root, command: "rpc", onLine: { line in
            if let notice = notifications.withLock({ $0.notice(forEventLine: line) }) { server.broadcast(notice) }
        }, onEnd: { why in
            FileHandle.standardError.write(Data("downloadfs: rpc: \(why); stopping\n".utf8))
            stop()
        })
        do { try events.start() } catch { throw failure(error) }
        do { try server.start() } catch {
            throw failure(ClientError("rpc: \(error.message)"))
        }
        if stopMount {
            FileHandle.standardOutput.write(Data((MountDoorProcess.readyLine + "\n").utf8))
            // Nobody reads the pipe after this line: stdout goes nowhere.
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 { dup2(null, 1); close(null) }
        }
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop() }
            source.resume()
            return source
        }
        // A lazy unmount (`fusermount3 -uz`) takes the mount out of the tree
        // but not its daemon, which lives while a file of it is open — and
        // the door holds `events` open, whose stream then never ends. So the
        // door also stops once the mount is gone from the mount table.
        let watch = DispatchSource.makeTimerSource(queue: .global())
        watch.schedule(deadline: .now() + Self.mountCheckInterval, repeating: Self.mountCheckInterval)
        watch.setEventHandler {
            guard !MountTable.downloadfsMounts().contains(where: { $0.mountpoint == root }) else { return }
            FileHandle.standardError.write(Data("downloadfs: rpc: \(root) is no longer mounted; stopping\n".utf8))
            stop()
        }
        watch.resume()
        server.waitUntilStopped()
        watch.cancel()
        withExtendedLifetime(signals) {}
    }
}
