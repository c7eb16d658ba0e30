/// Why a FUSE session could not be set up; `message` is the user's sentence.
public struct FuseError: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
