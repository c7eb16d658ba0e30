import RPCCore
import XCTest

/// JSON-RPC as aria2c 1.36 speaks it (R71, R72): envelopes, errors, batches, the secret.
final class Aria2ProtocolTests: RPCTestCase {
    /// aria2c 1.36's `system.listMethods`, as it answered it.
    static let aria2cMethods = [
        "aria2.addUri", "aria2.addTorrent", "aria2.getPeers", "aria2.addMetalink", "aria2.remove", "aria2.pause",
        "aria2.forcePause", "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll",
        "aria2.forceRemove", "aria2.changePosition", "aria2.tellStatus", "aria2.getUris", "aria2.getFiles",
        "aria2.getServers", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getOption",
        "aria2.changeUri", "aria2.changeOption", "aria2.getGlobalOption", "aria2.changeGlobalOption",
        "aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion", "aria2.getSessionInfo",
        "aria2.shutdown", "aria2.forceShutdown", "aria2.getGlobalStat", "aria2.saveSession", "system.multicall",
        "system.listMethods", "system.listNotifications",
    ]

    func test_listMethodsIsAria2cs() {
        XCTAssertEqual(result("system.listMethods"), .array(Self.aria2cMethods.map(JSONValue.string)))
    }

    func test_listNotificationsIsAria2cs() {
        XCTAssertEqual(result("system.listNotifications"), .array([
            "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop", "aria2.onDownloadComplete",
            "aria2.onDownloadError", "aria2.onBtDownloadComplete"].map(JSONValue.string)))
    }

    /// Every method answers: with a result, or an error that is not "no such method" nor a crash.
    func test_everyListedMethodIsAnswered() {
        let id = mount.put("http://h/a.iso", state: .downloading) { $0.view.total = 100 }
        for method in Self.aria2cMethods {
            let reply = call(method, [gid(id)])
            XCTAssertEqual(reply["id"], .string("q"), method)
            XCTAssertTrue(reply["result"] != nil || reply["error"] != nil, method)
            if let code = reply["error"]?.objectValue?["code"]?.integerValue {
                XCTAssertNotEqual(code, -32601, method)
            }
        }
    }

    /// A brief method (answered on the server's event loop) reads one task
    /// at most: no table, no `ctl`, no write; the others go to the pool.
    func test_briefMethodsReadOneTaskAndWriteNothing() {
        let id = mount.put("http://h/a.iso", state: .downloading) { $0.view.total = 100 }
        let brief = Aria2Method.allCases.filter(\.isBrief)
        XCTAssertTrue(brief.contains(.tellStatus))
        for method in brief {
            let before = mount.otherReads
            _ = call(method.rawValue, [gid(id)])
            XCTAssertEqual(mount.otherReads, before, method.rawValue)
            XCTAssertEqual(mount.writes, [], method.rawValue)
        }
        for method in [Aria2Method.tellWaiting, .getGlobalStat, .getOption, .getGlobalOption, .pause, .addUri] {
            XCTAssertFalse(method.isBrief, method.rawValue)
        }
    }

    func test_oneCallOfABriefMethodIsBriefAndABatchIsNot() {
        func brief(_ text: String) -> Bool { dispatcher.call(Array(text.utf8)).isBrief }
        XCTAssertTrue(brief(#"{"jsonrpc":"2.0","id":1,"method":"aria2.tellStatus","params":["1"]}"#))
        XCTAssertTrue(brief(#"{"id":1,"method":"aria2.tellStat"#), "a parse error")
        XCTAssertFalse(brief(#"{"jsonrpc":"2.0","id":1,"method":"aria2.tellWaiting","params":[0,9]}"#))
        XCTAssertFalse(brief(#"[{"jsonrpc":"2.0","id":1,"method":"aria2.tellStatus","params":["1"]}]"#))
        XCTAssertFalse(brief(#"{"jsonrpc":"2.0","id":1,"method":"aria2.nothing"}"#))
        XCTAssertFalse(brief(#"{"jsonrpc":"2.0","id":1,"method":"system.multicall","params":[[]]}"#))
    }

    /// A call is parsed once, and its reply is worked out only when asked
    /// for: the server may do that on another thread.
    func test_aCallDoesNothingUntilItsReplyIsAskedFor() {
        let call = dispatcher.call(Array(#"{"jsonrpc":"2.0","id":"q","method":"aria2.addUri","params":[["http://h/a.iso"]]}"#.utf8))
        XCTAssertFalse(call.isBrief)
        XCTAssertEqual(mount.writes, [])
        let reply = call.reply().flatMap { JSONValue.parse($0.body) }
        XCTAssertEqual(mount.writes, ["add http://h/a.iso"])
        XCTAssertEqual(reply?.objectValue?["id"], .string("q"))
    }

    func test_replyShape() {
        let reply = call("aria2.getVersion")
        XCTAssertEqual(reply["jsonrpc"], .string("2.0"))
        XCTAssertEqual(reply["result"]?.objectValue?["version"], .string("0.12.0"))
        XCTAssertEqual(reply["result"]?.objectValue?["enabledFeatures"], .array([.string("HTTPS"), .string("Message Digest")]))
    }

    func test_idIsEchoedWhateverItsType() {
        for id: JSONValue in [.integer(7), .string("abc"), .null, .array([.integer(1)]), .number(1.5)] {
            XCTAssertEqual(call("aria2.getVersion", id: id)["id"], id)
        }
    }

    func test_badJSONIsParseError() {
        let reply = self.reply(#"{"id":1,"method":"aria2.getVersion""#)
        XCTAssertEqual(reply, .object(["id": .null, "jsonrpc": .string("2.0"),
                                       "error": .object(["code": .integer(-32700), "message": .string("Parse error.")])]))
    }

    func test_callWithoutIdOrMethodIsInvalidRequest() {
        let noID = reply(#"{"method":"aria2.getVersion"}"#)?.objectValue
        XCTAssertEqual(noID?["error"]?.objectValue?["code"], .integer(-32600))
        XCTAssertEqual(noID?["id"], .null)
        let noMethod = reply(#"{"id":3,"method":4}"#)?.objectValue
        XCTAssertEqual(noMethod?["error"]?.objectValue?["code"], .integer(-32600))
        XCTAssertEqual(noMethod?["id"], .integer(3))
        XCTAssertEqual(reply("5")?.objectValue?["error"]?.objectValue?["code"], .integer(-32600))
    }

    func test_unknownMethodIsMethodNotFound() {
        let error = failure("aria2.frobnicate")
        XCTAssertEqual(error.code, -32601)
        XCTAssertEqual(error.message, "No such method: aria2.frobnicate")
    }

    func test_paramsThatAreNoListAreInvalidParams() {
        let reply = self.reply(#"{"id":1,"method":"aria2.getVersion","params":{"a":1}}"#)?.objectValue
        XCTAssertEqual(reply?["error"]?.objectValue?["code"], .integer(-32602))
    }

    func test_wrongParamsAreInvalidParamsWithASentence() {
        let missing = failure("aria2.tellStatus")
        XCTAssertEqual(missing.code, -32602)
        XCTAssertEqual(missing.message, "The parameter at 0 is required but missing.")
        let wrong = failure("aria2.tellWaiting", [.string("0"), .integer(1)])
        XCTAssertEqual(wrong.code, -32602)
        XCTAssertEqual(wrong.message, "The parameter at 0 has wrong type (expected an integer).")
    }

    func test_aNegativeCountAndAMissingOptionsStructAreInvalidParams() {
        let id = mount.put("http://h/a.iso")
        for method in ["aria2.tellWaiting", "aria2.tellStopped"] {
            let negative = failure(method, [.integer(0), .integer(-1)])
            XCTAssertEqual(negative.code, -32602, method)
            XCTAssertEqual(negative.message,
                           "The integer parameter at 1 has invalid value: the value must be greater than or equal to 0.")
        }
        let noOptions = failure("aria2.changeOption", [gid(id)])
        XCTAssertEqual(noOptions.code, -32602)
        XCTAssertEqual(noOptions.message, "The parameter at 1 is required but missing.")
        let noGlobalOptions = failure("aria2.changeGlobalOption")
        XCTAssertEqual(noGlobalOptions.code, -32602)
        XCTAssertEqual(noGlobalOptions.message, "The parameter at 0 is required but missing.")
        XCTAssertEqual(mount.writes.count, 0, "nothing was written to the mount")
    }

    func test_errorsChangeNothing() {
        let id = mount.put("http://h/a.iso")
        _ = reply("{not json")
        _ = reply(#"{"method":"aria2.pause","params":["0000000000000001"]}"#)
        _ = failure("aria2.nope", [gid(id)])
        _ = failure("aria2.addUri", [.string("http://h/b")])
        _ = failure("aria2.addUri", [.array([.string("http://h/b")]), .object(["bogus": .string("1")])])
        _ = failure("aria2.changeOption", [gid(id), .object(["split": .string("3"), "bogus": .string("1")])])
        _ = failure("aria2.changeGlobalOption", [.object(["max-concurrent-downloads": .string("0")])])
        _ = failure("aria2.remove", [.string("zz")])
        XCTAssertEqual(mount.writes, [])
        XCTAssertEqual(mount.task(id)?.view.state, .queued)
    }

    func test_batchAnswersEachCallInOrderAndPassesOverNonObjects() {
        let reply = self.reply(#"[{"id":1,"method":"aria2.getSessionInfo"}, 5, {"id":2,"method":"x.y"}]"#)
        let replies = reply?.arrayValue ?? []
        XCTAssertEqual(replies.count, 2)
        XCTAssertEqual(replies.first?.objectValue?["id"], .integer(1))
        XCTAssertNotNil(replies.first?.objectValue?["result"])
        XCTAssertEqual(replies.last?.objectValue?["error"]?.objectValue?["code"], .integer(-32601))
        XCTAssertEqual(self.reply("[]"), .array([]))
    }

    /// What the transport maps to aria2c's HTTP status comes beside the
    /// body: a single call's error, none for a result or a batch, and a
    /// wrong secret wherever it was answered.
    func test_theReplySaysItsErrorBesideTheBody() {
        let answer = { (body: String, dispatcher: Aria2Dispatcher) in dispatcher.respond(to: Array(body.utf8)) }
        XCTAssertEqual(answer(#"{"id":1,"method":"aria2.getSessionInfo"}"#, dispatcher)?.error, nil)
        XCTAssertEqual(answer("{", dispatcher)?.error, .parse)
        XCTAssertEqual(answer(#"{"id":1}"#, dispatcher)?.error, .invalidRequest)
        XCTAssertEqual(answer(#"{"id":1,"method":"x.y"}"#, dispatcher)?.error?.code, -32601)
        XCTAssertEqual(answer(#"{"id":1,"method":"aria2.tellStatus","params":["zz"]}"#, dispatcher)?.error?.code, 1)
        let failedBatch = answer(#"[{"id":1,"method":"x.y"}]"#, dispatcher)
        XCTAssertEqual(failedBatch?.error, nil)
        XCTAssertEqual(failedBatch?.unauthorized, false)
        // A failed task's status word "error" is a result.
        XCTAssertEqual(answer(#"{"id":1,"method":"aria2.tellStopped","params":[0,10]}"#, dispatcher)?.error, nil)

        let guarded = makeDispatcher(secret: "s3cret")
        let refused = answer(#"{"id":1,"method":"aria2.getVersion","params":["token:no"]}"#, guarded)
        XCTAssertEqual(refused?.error, .unauthorized)
        XCTAssertEqual(refused?.unauthorized, true)
        let batch = answer(#"[{"id":1,"method":"system.listMethods"},{"id":2,"method":"aria2.getVersion"}]"#, guarded)
        XCTAssertEqual(batch?.error, nil)
        XCTAssertEqual(batch?.unauthorized, true)
        XCTAssertEqual(answer(#"{"id":1,"method":"aria2.getVersion","params":["token:s3cret"]}"#, guarded)?.unauthorized,
                       false)
    }

    // MARK: The secret (R71)

    func test_withASecretACallWithoutTheTokenIsUnauthorized() {
        let guarded = makeDispatcher(secret: "s3cret")
        for params: [JSONValue] in [[], [.string("token:wrong")], [.string("token:s3cre")], [.string("token:s3cret!")],
                                    [.string("s3cret")]] {
            let error = failure("aria2.getVersion", params, guarded)
            XCTAssertEqual(error.code, 1)
            XCTAssertEqual(error.message, "Unauthorized")
        }
        XCTAssertNotNil(call("aria2.getVersion", [.string("token:s3cret")], guarded)["result"])
    }

    func test_withASecretAnUnknownMethodIsUnauthorizedFirst() {
        let guarded = makeDispatcher(secret: "s3cret")
        XCTAssertEqual(failure("aria2.nope", [], guarded).message, "Unauthorized")
        XCTAssertEqual(failure("aria2.nope", [.string("token:s3cret")], guarded).code, -32601)
    }

    func test_theTokenIsTakenOffTheParamsEvenWithoutASecret() {
        let id = mount.put("http://h/a.iso")
        XCTAssertEqual(call("aria2.tellStatus", [.string("token:any"), gid(id), .array([.string("gid")])])["result"],
                       .object(["gid": gid(id)]))
    }

    func test_refusedTokenChangesNothing() {
        let guarded = makeDispatcher(secret: "s3cret")
        let id = mount.put("http://h/a.iso")
        _ = failure("aria2.pause", [.string("token:x"), gid(id)], guarded)
        _ = failure("aria2.addUri", [.array([.string("http://h/b")])], guarded)
        _ = failure("aria2.shutdown", [], guarded)
        XCTAssertEqual(mount.writes, [])
        XCTAssertEqual(shutdowns, [])
    }

    func test_listMethodsAndNotificationsNeedNoToken() {
        let guarded = makeDispatcher(secret: "s3cret")
        XCTAssertNotNil(call("system.listMethods", [], guarded)["result"])
        XCTAssertNotNil(call("system.listNotifications", [.string("token:bad")], guarded)["result"])
    }

    // MARK: system.multicall

    func test_multicallChecksEachCallsTokenAndWrapsResults() {
        let guarded = makeDispatcher(secret: "s3cret")
        let calls: JSONValue = .array([
            .object(["methodName": .string("aria2.getSessionInfo"), "params": .array([.string("token:s3cret")])]),
            .object(["methodName": .string("aria2.getSessionInfo")]),
            .object(["methodName": .string("system.multicall"), "params": .array([])]),
            .object(["methodName": .string("x.y"), "params": .array([.string("token:s3cret")])]),
            .integer(5),
        ])
        let results = call("system.multicall", [calls], guarded)["result"]?.arrayValue ?? []
        XCTAssertEqual(results.count, 5)
        XCTAssertNotNil(results[0].arrayValue?.first?.objectValue?["sessionId"])
        XCTAssertEqual(results[1], .object(["code": .integer(1), "message": .string("Unauthorized")]))
        XCTAssertEqual(results[2], .object(["code": .integer(1), "message": .string("Recursive system.multicall forbidden.")]))
        XCTAssertEqual(results[3].objectValue?["code"], .integer(-32601))
        XCTAssertEqual(results[4], .object(["code": .integer(1), "message": .string("system.multicall expected struct.")]))
    }

    func test_multicallWithoutAListIsInvalidParams() {
        XCTAssertEqual(failure("system.multicall").code, -32602)
        XCTAssertEqual(failure("system.multicall", [.string("token:x")]).code, -32602)
    }

    // MARK: Server

    func test_shutdownCallsBackAndAnswersOK() {
        XCTAssertEqual(result("aria2.shutdown"), .string("OK"))
        XCTAssertEqual(result("aria2.forceShutdown"), .string("OK"))
        XCTAssertEqual(shutdowns, [false, true])
    }

    func test_sessionInfoIsStableAndVersionIsDownloadfss() {
        let first = result("aria2.getSessionInfo").objectValue?["sessionId"]?.stringValue ?? ""
        XCTAssertEqual(first.count, 40)
        XCTAssertEqual(result("aria2.getSessionInfo").objectValue?["sessionId"]?.stringValue, first)
        XCTAssertEqual(result("aria2.saveSession"), .string("OK"))
    }

    func test_whatDownloadfsDoesNotDoIsSaid() {
        for method in ["aria2.addTorrent", "aria2.addMetalink", "aria2.getPeers", "aria2.changeUri"] {
            let error = failure(method, [.string("x")])
            XCTAssertEqual(error.code, 1, method)
            XCTAssertTrue(error.message.hasPrefix("downloadfs does not"), error.message)
        }
    }
}
