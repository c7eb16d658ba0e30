/// Why a `checksum=` value could not be read; `reason` is the user's sentence.
public struct ChecksumSpecError: Error, Equatable, Sendable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }
}
