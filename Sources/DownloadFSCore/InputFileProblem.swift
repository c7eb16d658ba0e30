/// Why a file an option line names (`load-cookies=FILE`, R10) could not be
/// read: the sentence the refusal of that line carries (R11).
public struct InputFileProblem: Error, Sendable, Equatable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }
}
