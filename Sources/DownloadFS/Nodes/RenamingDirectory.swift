import FuseKit

/// A directory whose children `mv` may rename (`files/`, R40). Others
/// refuse with EPERM.
protocol RenamingDirectory: DirectoryNode {
    /// Renames `name` to `newName` in `target` (EXDEV when the target is
    /// a directory the name cannot move to).
    func rename(_ name: String, to newName: String, in target: any DirectoryNode) throws(Errno)
}
