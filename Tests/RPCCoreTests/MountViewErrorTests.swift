import XCTest
import RPCCore

final class MountViewErrorTests: XCTestCase {
    func test_anErrorCarriesItsErrnoAndSentence() {
        let error = MountViewError(code: 22, message: "line 1: unsupported scheme")
        XCTAssertEqual(error.code, 22)
        XCTAssertEqual(error.message, "line 1: unsupported scheme")
    }
}
