import FuseKit

/// A directory that decides itself what `unlink` of a child does. Others
/// refuse: EPERM for a file, EISDIR for a directory (`DownloadFileSystem`).
protocol UnlinkingDirectory: DirectoryNode {
    func unlink(_ name: String) throws(Errno)
}
