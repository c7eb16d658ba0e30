import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// Every open WebSocket connection, so a notification reaches them all
/// (R73).
///
/// The lock guards only the dictionary: `broadcast` copies the channels out
/// and writes after releasing it, so no lock is held across I/O.
final class WebSocketClients: Sendable {
    private let channels = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        channels.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        _ = channels.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var count: Int { channels.withLockedValue { $0.count } }

    /// One text frame to every client. A client whose socket buffer is
    /// already over the high-water mark is not reading: it is closed rather
    /// than queued for, so memory per connection stays bounded; a client
    /// that reconnects asks for the state again (aria2 clients poll
    /// `tellActive` after a reconnect).
    func broadcast(_ text: [UInt8]) {
        let targets = channels.withLockedValue { Array($0.values) }
        for channel in targets {
            guard channel.isWritable else {
                channel.close(promise: nil)
                continue
            }
            var buffer = channel.allocator.buffer(capacity: text.count)
            buffer.writeBytes(text)
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
        }
    }

    /// Tells every client the server is going away (close code 1001),
    /// then closes it (`stop()`).
    func closeAll() {
        let targets = channels.withLockedValue { Array($0.values) }
        for channel in targets {
            var data = channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: .goingAway)
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
                .whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
