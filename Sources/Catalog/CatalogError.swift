import GRDB

/// A catalog failure, with the sentence the user reads (R54: the message says
/// what happened; the database stays consistent because every change is one
/// transaction).
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public init(_ action: String, _ error: any Error, hint: String? = nil) {
        let hint = hint ?? (Self.isDiskFull(error) ? Self.diskFullHint : nil)
        self.message = "catalog: could not \(action): \(error)" + (hint.map { "; " + $0 } ?? "")
    }

    /// What a user does when the state dir's disk is full (R54).
    static let diskFullHint = "the state dir's disk is full: free some space on it, then try again"

    /// SQLITE_FULL, from GRDB or from our own statements (`StatementBinder`).
    static func isDiskFull(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_FULL }
        return "\(error)".contains("(database or disk is full)")
    }
    public var description: String { message }
}
