import Synchronization
import RPCCore
import XCTest

/// A dispatcher over a `FakeMount`, and calls written as aria2 clients write them.
class RPCTestCase: XCTestCase {
    var mount = FakeMount()
    /// What `onShutdown` was called with.
    final class ShutdownLog: Sendable {
        let calls = Mutex<[Bool]>([])
    }

    var shutdowns: [Bool] { shutdownLog.calls.withLock { $0 } }
    private let shutdownLog = ShutdownLog()
    lazy var dispatcher = makeDispatcher(secret: nil)

    func makeDispatcher(secret: String?) -> Aria2Dispatcher {
        let log = shutdownLog
        return Aria2Dispatcher(mount: mount, secret: secret, version: "0.12.0") { force in
            log.calls.withLock { $0.append(force) }
        }
    }

    /// The whole reply to `body`, parsed.
    func reply(_ body: String, _ dispatcher: Aria2Dispatcher? = nil) -> JSONValue? {
        guard let bytes = (dispatcher ?? self.dispatcher).respond(to: Array(body.utf8))?.body else { return nil }
        return JSONValue.parse(bytes)
    }

    /// The reply to one call of `method` with `params`.
    func call(_ method: String, _ params: [JSONValue] = [], id: JSONValue = .string("q"),
              _ dispatcher: Aria2Dispatcher? = nil) -> [String: JSONValue] {
        let body = JSONValue.object(["jsonrpc": .string("2.0"), "id": id, "method": .string(method),
                                     "params": .array(params)]).encoded
        let bytes = (dispatcher ?? self.dispatcher).respond(to: body)?.body ?? []
        return JSONValue.parse(bytes)?.objectValue ?? [:]
    }

    /// The result of a call that must succeed.
    func result(_ method: String, _ params: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line)
        -> JSONValue {
        let reply = call(method, params)
        XCTAssertNil(reply["error"], "\(method): \(reply["error"].map { String(decoding: $0.encoded, as: UTF8.self) } ?? "")",
                     file: file, line: line)
        return reply["result"] ?? .null
    }

    /// The error code and message of a call that must fail.
    func failure(_ method: String, _ params: [JSONValue] = [], _ dispatcher: Aria2Dispatcher? = nil,
                 file: StaticString = #filePath, line: UInt = #line) -> (code: Int64, message: String) {
        let reply = call(method, params, dispatcher)
        guard let error = reply["error"]?.objectValue else {
            XCTFail("\(method) did not fail", file: file, line: line)
            return (0, "")
        }
        return (error["code"]?.integerValue ?? 0, error["message"]?.stringValue ?? "")
    }

    func gid(_ id: Int64) -> JSONValue { .string(Aria2GID.text(id)) }
}
