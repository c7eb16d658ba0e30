/// Why `mv` inside files/ was refused.
enum RenameError: Error, Sendable {
    case missing, badName, exists
    case io(Int32)
}
