/// A task's GID (R72): its id as 16 lowercase hex digits, `0000000000000007`.
public enum Aria2GID {
    public static func text(_ id: Int64) -> String {
        let hex = String(UInt64(bitPattern: id), radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The task id a GID names; aria2c's sentence when it is no GID
    /// (exactly 16 hex digits, a positive id).
    public static func id(_ text: String) throws(Aria2Error) -> Int64 {
        guard text.utf8.count == 16, let value = UInt64(text, radix: 16), value > 0, value <= UInt64(Int64.max) else {
            throw .failure("Invalid GID \(text)")
        }
        return Int64(value)
    }
}
