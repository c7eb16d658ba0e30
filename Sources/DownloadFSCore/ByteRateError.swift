/// Why a RATE (R1, R10, R30, R31) was refused, in the words the user reads.
public enum ByteRateError: Error, Sendable, Equatable {
    /// Not a rate at all: `fast`, `-1`, `1e3`.
    case unreadable(String)
    /// Not zero, but less than the smallest limit, 1 byte/s (`0.5`, `0.0001K`):
    /// taking it as 0 would silently remove the limit the user asked for.
    case belowSmallest(String)

    public var message: String {
        switch self {
        case .unreadable(let text):
            return "bad rate \"\(text)\" (use e.g. 500K, 2M, 1.5MiB, or 0 for none)"
        case .belowSmallest(let text):
            return "rate \"\(text)\" is below the smallest limit, 1 byte/s (use 1 or more, or 0 for none)"
        }
    }
}
