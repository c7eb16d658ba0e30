/// An error a call answers (R71): aria2c's code and sentence.
///
/// JSON-RPC's own codes for a body that is not JSON (-32700), a call that
/// is not one (-32600), a method that does not exist (-32601) and
/// parameters of the wrong shape (-32602, with a sentence saying which);
/// code 1, as aria2c uses for everything else, for a refused token and for
/// what the mount refuses (its sentence, `MountViewError.message`).
public struct Aria2Error: Error, Sendable, Equatable {
    public let code: Int
    public let message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// A call refused: code 1 and the sentence.
    public static func failure(_ message: String) -> Aria2Error { Aria2Error(code: 1, message: message) }

    public static let parse = Aria2Error(code: -32700, message: "Parse error.")
    public static let invalidRequest = Aria2Error(code: -32600, message: "Invalid Request.")
    /// aria2c answers an unknown method with code 1 and this sentence;
    /// JSON-RPC 2.0 (and R71) give it -32601, which we send.
    public static func methodNotFound(_ name: String) -> Aria2Error {
        Aria2Error(code: -32601, message: "No such method: \(name)")
    }
    public static func invalidParams(_ sentence: String) -> Aria2Error { Aria2Error(code: -32602, message: sentence) }
    public static let unauthorized = Aria2Error(code: 1, message: "Unauthorized")

    /// What the mount refused, in its words.
    init(_ error: MountViewError) {
        self.init(code: 1, message: error.message)
    }

    /// `{"code": C, "message": M}`.
    var json: JSONValue {
        .object(["code": .integer(Int64(code)), "message": .string(message)])
    }
}
