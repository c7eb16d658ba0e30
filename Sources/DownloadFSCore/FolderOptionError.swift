/// Why a `dir=` option was refused: the sentence the log shows.
public struct FolderOptionError: Error, Equatable, Sendable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}
