import RPCCore
import XCTest

@testable import RPCServer

/// The HTTP status of a reply, as aria2c's `sendJsonRpcResponse` chooses
/// it from the error the reply carries.
final class RPCReplyStatusTests: XCTestCase {
    private func status(_ error: Aria2Error?) -> RPCReplyStatus {
        RPCReplyStatus(Aria2Reply(body: [], error: error))
    }

    func testResultIs200KeepAlive() {
        let verdict = status(nil)
        XCTAssertEqual(verdict.status, .ok)
        XCTAssertTrue(verdict.keepAlive)
        XCTAssertFalse(verdict.unauthorized)
    }

    func testErrorCodesMapAsAria2c() {
        XCTAssertEqual(status(.failure("x")).status, .badRequest)
        XCTAssertEqual(status(.invalidRequest).status, .badRequest)
        XCTAssertEqual(status(.methodNotFound("x")).status, .notFound)
        XCTAssertEqual(status(.invalidParams("x")).status, .internalServerError)
        XCTAssertEqual(status(.parse).status, .internalServerError)
        XCTAssertFalse(status(.failure("x")).keepAlive)
    }

    func testUnauthorizedSingleOrInBatch() {
        XCTAssertTrue(status(.unauthorized).unauthorized)
        let batch = RPCReplyStatus(Aria2Reply(batch: [], unauthorized: true))
        XCTAssertEqual(batch.status, .ok)
        XCTAssertTrue(batch.keepAlive)
        XCTAssertTrue(batch.unauthorized)
    }
}
