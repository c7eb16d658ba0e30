/// A catalog failure, with the sentence the user reads (R54: the message says
/// what happened; the database stays consistent because every change is one
/// transaction).
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public init(_ action: String, _ error: any Error, hint: String? = nil) {
        self.message = "catalog: could not \(action): \(error)" + (hint.map { "; " + $0 } ?? "")
    }
    public var description: String { message }
}
