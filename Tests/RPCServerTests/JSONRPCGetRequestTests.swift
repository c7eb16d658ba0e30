import XCTest

@testable import RPCServer

/// A GET query turned into a call body as aria2c's `decodeGetParams` does.
final class JSONRPCGetRequestTests: XCTestCase {
    private func body(_ query: String) -> String? {
        JSONRPCGetRequest(query: Substring(query)).map { String(decoding: $0.body, as: UTF8.self) }
    }

    func testMethodIdAndBase64ParamsMakeOneCall() {
        // WzEsMiwzXQ== is [1,2,3], aria2's own example, percent-encoded.
        XCTAssertEqual(body("method=sum&id=300&params=WzEsMiwzXQ%3D%3D"),
                       #"{"jsonrpc":"2.0","method":"sum","id":"300","params":[1,2,3]}"#)
    }

    func testParamsWithoutPaddingOrURLSafeAlphabet() {
        XCTAssertEqual(body("method=m&id=1&params=WzEsMiwzXQ"),
                       #"{"jsonrpc":"2.0","method":"m","id":"1","params":[1,2,3]}"#)
        // [">?"] has `+`/`/` in standard base64: WyI+PyJd
        XCTAssertEqual(body("method=m&id=1&params=WyI-PyJd"),
                       #"{"jsonrpc":"2.0","method":"m","id":"1","params":[">?"]}"#)
    }

    func testNeitherMethodNorIdMeansParamsIsTheWholeBatch() {
        let batch = Data(#"[{"method":"a"},{"method":"b"}]"#.utf8).base64EncodedString()
        XCTAssertEqual(body("params=\(batch)"), #"[{"method":"a"},{"method":"b"}]"#)
    }

    func testEmptyQueryIsNullSoTheDispatcherAnswersInvalidRequest() {
        XCTAssertEqual(body(""), "null")
    }

    func testIdAndMethodAreEscapedNotPasted() {
        XCTAssertEqual(body(#"method=m&id=a%22b"#), #"{"jsonrpc":"2.0","method":"m","id":"a\"b"}"#)
    }

    func testBadBase64LeavesABodyThatDoesNotParse() {
        XCTAssertEqual(body("method=m&id=1&params=!!!"), #"{"jsonrpc":"2.0","method":"m","id":"1","params":}"#)
    }

    func testCallbackIsKeptWhenAJavaScriptName() {
        XCTAssertEqual(JSONRPCGetRequest(query: "method=m&id=1&jsoncallback=jQuery12_3.cb")?.callback, "jQuery12_3.cb")
        XCTAssertNil(JSONRPCGetRequest(query: "method=m&id=1&jsoncallback=alert(1)"))
    }
}
