/// Why `mv` inside files/ was refused (R40).
public enum RenameError: Error, Sendable, Equatable {
    /// No completed task has that file.
    case missing
    /// Not a name R17 would keep (EINVAL).
    case badName
    /// The new name is taken by a task or a file (EEXIST).
    case exists
    /// The rename on disk failed with this errno.
    case io(Int32)
}
