import FuseKit

/// A directory in which `mkdir` makes a directory (`files/` and its
/// folders, R35). Everywhere else it is EPERM (R6).
protocol MakingDirectory: DirectoryNode {
    /// The new directory's node.
    func makeDirectory(_ name: String) throws(Errno) -> any Node
}
