import XCTest

@testable import RPCServer

/// The HTTP status read back from a reply, as aria2c's
/// `sendJsonRpcResponse` chooses it.
final class RPCReplyStatusTests: XCTestCase {
    private func status(_ reply: String) -> RPCReplyStatus {
        RPCReplyStatus(reply: Array(reply.utf8))
    }

    func testResultIs200KeepAlive() {
        let verdict = status(#"{"id":"1","jsonrpc":"2.0","result":"OK"}"#)
        XCTAssertEqual(verdict.status, .ok)
        XCTAssertTrue(verdict.keepAlive)
        XCTAssertFalse(verdict.unauthorized)
    }

    func testErrorCodesMapAsAria2c() {
        XCTAssertEqual(status(#"{"error":{"code":1,"message":"x"}}"#).status, .badRequest)
        XCTAssertEqual(status(#"{"error":{"code":-32600,"message":"x"}}"#).status, .badRequest)
        XCTAssertEqual(status(#"{"error":{"code":-32601,"message":"x"}}"#).status, .notFound)
        XCTAssertEqual(status(#"{"error":{"code":-32602,"message":"x"}}"#).status, .internalServerError)
        XCTAssertEqual(status(#"{"error":{"code":-32700,"message":"x"}}"#).status, .internalServerError)
        XCTAssertFalse(status(#"{"error":{"code":1,"message":"x"}}"#).keepAlive)
    }

    func testUnauthorizedSingleOrInBatch() {
        XCTAssertTrue(status(#"{"error":{"code":1,"message":"Unauthorized"}}"#).unauthorized)
        let batch = status(#"[{"result":"OK"},{"error":{"code":1,"message":"Unauthorized"}}]"#)
        XCTAssertEqual(batch.status, .ok)
        XCTAssertTrue(batch.unauthorized)
    }

    func testErrorKeyIsFoundWhereverItStandsAndOnlyAsAKey() {
        XCTAssertEqual(status(#"{"id":"q","jsonrpc":"2.0","error" : {"code":1,"message":"x"}}"#).status, .badRequest)
        // The status word "error" and an escaped "error": inside a string are results.
        let failedTask = status(#"{"id":1,"result":{"status":"error","errorMessage":"said \"error\": no"}}"#)
        XCTAssertEqual(failedTask.status, .ok)
        XCTAssertTrue(failedTask.keepAlive)
    }

    func testLargeRepliesAreNotParsedAgain() {
        let large = #"{"result":""# + String(repeating: "a", count: RPCReplyStatus.peekLimit) + #""}"#
        XCTAssertEqual(status(large).status, .ok)
    }
}
