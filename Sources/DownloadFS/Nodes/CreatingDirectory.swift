import FuseKit

/// A directory in which `create` (`O_CREAT` of a new name) makes a file
/// (`queue/`: a drop-in file, R14). Everywhere else it is EACCES (R6).
protocol CreatingDirectory: DirectoryNode {
    /// The new node and its open handle; `caller` made it.
    func create(_ name: String, by caller: RequestCaller) throws(Errno) -> (node: any Node, file: any OpenFile)
}
