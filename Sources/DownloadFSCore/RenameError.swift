/// Why `mv` (R40) or `mkdir` (R35) inside files/ was refused.
public enum RenameError: Error, Sendable, Equatable {
    /// No completed task has that file (or no file or folder has that name).
    case missing
    /// Not a name R17 would keep, in any part of its place (EINVAL).
    case badName
    /// The new name is taken by a task or a file (EEXIST).
    case exists
    /// A task's file in the folder is being moved in right now (EBUSY): `mv` again.
    case busy
    /// The rename on disk failed with this errno.
    case io(Int32)
}
