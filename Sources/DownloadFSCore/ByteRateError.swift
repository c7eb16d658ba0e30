/// Why a RATE (R1, R10, R30, R31) was refused, in the words the user reads.
public enum ByteRateError: Error, Sendable, Equatable {
    /// Not a rate at all: `fast`, `-1`, `1e3`.
    case unreadable(String)
    /// Not zero, but less than the smallest limit, 1 byte/s (`0.5`, `0.0001K`):
    /// taking it as 0 would silently remove the limit the user asked for.
    case belowSmallest(String)
    /// `2Mb`, `500kb`: a lowercase b after the unit means bits.
    case bits(String)

    public var message: String {
        switch self {
        case .unreadable(let text):
            return "bad rate \"\(text)\" (use e.g. 500K, 2M, 1.5MiB, or 0 for none)"
        case .bits(let text):
            return "rate \"\(text)\" is in bits (a lowercase b); limits are in bytes per second: use B or no letter for bytes (2M), or divide by 8 (2 Mbit/s is 256K)"
        case .belowSmallest(let text):
            return "rate \"\(text)\" is below the smallest limit, 1 byte/s (use 1 or more, or 0 for none)"
        }
    }
}
