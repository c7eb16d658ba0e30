/// The secret check (R71): a call's first parameter `token:SECRET`.
///
/// As aria2c does, a first parameter that is a string starting with
/// `token:` is always taken off the list, secret or not, so methods read
/// their own parameters from 0; with a secret, a call without one or with
/// another is refused ("Unauthorized", code 1).
struct Aria2Token {
    private static let prefix = "token:"
    let secret: [UInt8]?

    init(secret: String?) {
        self.secret = secret.map { Array($0.utf8) }
    }

    /// The parameters without the token, or `.unauthorized`.
    func check(_ params: [JSONValue]) throws(Aria2Error) -> [JSONValue] {
        var rest = params
        var given: [UInt8]?
        if let first = params.first?.stringValue, first.hasPrefix(Self.prefix) {
            given = Array(first.utf8.dropFirst(Self.prefix.utf8.count))
            rest.removeFirst()
        }
        if let secret {
            guard let given, Self.constantTimeEqual(given, secret) else { throw .unauthorized }
        }
        return rest
    }

    /// Whether `a` equals `secret`, in a time that depends on the secret's
    /// length only (not on where the first difference is).
    static func constantTimeEqual(_ a: [UInt8], _ secret: [UInt8]) -> Bool {
        var difference = UInt8(a.count == secret.count ? 0 : 1)
        for index in secret.indices {
            difference |= secret[index] ^ (index < a.count ? a[index] : ~secret[index])
        }
        return difference == 0
    }
}
