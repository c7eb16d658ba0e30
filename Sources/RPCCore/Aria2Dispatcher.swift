/// aria2's JSON-RPC door, decided without I/O (R70–R73): a request body in,
/// a reply body out, every call carried out on a `MountView`.
///
/// The HTTP/WebSocket server hands it each POST body or text frame and
/// sends back what `respond` returns; `Aria2NotificationFeed` turns the
/// lines of `MOUNT/events` into notifications.
/// What each method does is `Aria2Calls`'s; this type does JSON-RPC:
/// parse errors, batches (a list of calls; an element that is not an
/// object is passed over, as aria2c does), ids echoed whatever their type,
/// the secret (R71) and `system.*`.
public final class Aria2Dispatcher: Sendable {
    private let calls: Aria2Calls
    private let token: Aria2Token

    /// `version` is downloadfs's (`getVersion`); `onShutdown` is called by
    /// `aria2.shutdown` (false) and `aria2.forceShutdown` (true) before
    /// the reply is returned: it should stop the server once that reply
    /// has gone out.
    public init(mount: any MountView, secret: String?, version: String,
                onShutdown: @escaping @Sendable (_ force: Bool) -> Void) {
        var random = SystemRandomNumberGenerator()
        let session = (0..<5).map { _ in
            let hex = String(random.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
        calls = Aria2Calls(mount: mount, version: version, sessionID: session, removed: RemovedResults(),
                           onShutdown: onShutdown)
        token = Aria2Token(secret: secret)
    }

    /// One HTTP POST body or WebSocket text frame, parsed: a call or a
    /// batch, and whether it is brief (`Aria2Call`). Its reply is nil when
    /// nothing is to be sent. Every request gets a reply as aria2c gives
    /// one (an empty batch gets `[]`), so it is never nil at present; nil is
    /// kept for JSON-RPC notifications (calls without an id), which aria2c
    /// answers as invalid requests and so do we. A batch, however small, is
    /// not brief.
    public func call(_ body: [UInt8]) -> Aria2Call {
        guard let request = JSONValue.parse(body) else {
            return Aria2Call(isBrief: true) {
                Aria2Reply(body: Self.envelope(id: .null, .failure(.parse)).encoded, error: .parse)
            }
        }
        let method = request.objectValue?["method"]?.stringValue.flatMap(Aria2Method.init(rawValue:))
        return Aria2Call(isBrief: method?.isBrief ?? false) { [self] in respond(toRequest: request) }
    }

    /// `call(body)`'s reply, worked out at once.
    public func respond(to body: [UInt8]) -> Aria2Reply? { call(body).reply() }

    private func respond(toRequest request: JSONValue) -> Aria2Reply? {
        if case .array(let batch) = request {
            let replies = batch.filter { $0.objectValue != nil }.map(respond(toCall:))
            return Aria2Reply(batch: JSONValue.array(replies.map(\.reply)).encoded,
                              unauthorized: replies.contains { $0.error == .unauthorized })
        }
        let (reply, error) = respond(toCall: request)
        return Aria2Reply(body: reply.encoded, error: error)
    }

    /// One call's reply, and the error it answers.
    private func respond(toCall request: JSONValue) -> (reply: JSONValue, error: Aria2Error?) {
        let (id, outcome) = answer(request)
        var error: Aria2Error?
        if case .failure(let failure) = outcome { error = failure }
        return (Self.envelope(id: id, outcome), error)
    }

    /// The id a call carries (null when it carries none) and its outcome.
    private func answer(_ request: JSONValue) -> (id: JSONValue, Result<JSONValue, Aria2Error>) {
        guard let object = request.objectValue, let id = object["id"] else { return (.null, .failure(.invalidRequest)) }
        guard let name = object["method"]?.stringValue else { return (id, .failure(.invalidRequest)) }
        let params: [JSONValue]
        switch object["params"] {
        case nil: params = []
        case .array(let values)?: params = values
        default: return (id, .failure(.invalidParams("Invalid params.")))
        }
        do {
            return (id, .success(try call(name, params)))
        } catch {
            return (id, .failure(error))
        }
    }

    /// The result of method `name`. An unknown method is told so only with
    /// the right token, as aria2c does (it checks the token first).
    private func call(_ name: String, _ params: [JSONValue]) throws(Aria2Error) -> JSONValue {
        guard let method = Aria2Method(rawValue: name) else {
            _ = try token.check(params)
            throw .methodNotFound(name)
        }
        switch method {
        case .listMethods: return .array(Aria2Method.allCases.map { .string($0.rawValue) })
        case .listNotifications: return .array(Aria2Method.notifications.map(JSONValue.string))
        case .multicall: return try multicall(Aria2Params(params))
        default: return try calls.perform(method, Aria2Params(try token.check(params)))
        }
    }

    /// `system.multicall([{methodName, params}, …])`: each call with its own
    /// token; each result as `[result]`, each error as `{code, message}`.
    private func multicall(_ params: Aria2Params) throws(Aria2Error) -> JSONValue {
        guard let list = params.optional(0) else { throw .invalidParams("The parameter at 0 is required but missing.") }
        guard let calls = list.arrayValue else {
            throw .invalidParams("The parameter at 0 has wrong type (expected a list of structs).")
        }
        return .array(calls.map { element in
            guard let object = element.objectValue, let name = object["methodName"]?.stringValue else {
                return Aria2Error.failure("system.multicall expected struct.").json
            }
            guard name != Aria2Method.multicall.rawValue else {
                return Aria2Error.failure("Recursive system.multicall forbidden.").json
            }
            let params: [JSONValue]
            switch object["params"] {
            case nil: params = []
            case .array(let values)?: params = values
            default: return Aria2Error.invalidParams("Invalid params.").json
            }
            do throws(Aria2Error) {
                return .array([try call(name, params)])
            } catch {
                return error.json
            }
        })
    }

    private static func envelope(id: JSONValue, _ outcome: Result<JSONValue, Aria2Error>) -> JSONValue {
        var reply: [String: JSONValue] = ["id": id, "jsonrpc": .string("2.0")]
        switch outcome {
        case .success(let result): reply["result"] = result
        case .failure(let error): reply["error"] = error.json
        }
        return .object(reply)
    }
}
