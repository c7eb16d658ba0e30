import RPCCore
import XCTest

final class JSONValueTests: XCTestCase {
    func test_parsesEveryKindOfValue() {
        let value = JSONValue.parse(Array(#"{"a":[1,-2.5,true,false,null,"x\u00e9"],"b":{}}"#.utf8))
        XCTAssertEqual(value, .object(["a": .array([.integer(1), .number(-2.5), .bool(true), .bool(false), .null,
                                                    .string("xé")]), "b": .object([:])]))
    }

    func test_notJSONIsNil() {
        XCTAssertNil(JSONValue.parse(Array("{\"a\":".utf8)))
        XCTAssertNil(JSONValue.parse([]))
    }

    func test_writesSortedKeysEscapesAndWholeNumbers() {
        let value = JSONValue.object(["b": .string("q\"\\\n\u{1}é"), "a": .array([.integer(7), .number(2), .number(0.5), .null])])
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), #"{"a":[7,2,0.5,null],"b":"q\"\\\n\u0001é"}"#)
    }

    func test_roundTrips() {
        let value = JSONValue.object(["id": .array([.integer(1), .bool(true)]), "m": .string("\t")])
        XCTAssertEqual(JSONValue.parse(value.encoded), value)
    }
}
