import FuseKit

/// A directory whose child directories `rmdir` removes (`queue/`: cancels a
/// task, R32). Others refuse: EPERM for a directory, ENOTDIR for a file.
protocol RemovingDirectory: DirectoryNode {
    func removeDirectory(_ name: String) throws(Errno)
}
