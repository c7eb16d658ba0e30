/// Why `mv` inside files/ was refused.
enum RenameError: Error {
    case missing, badName, exists
    case io(Int32)
}
