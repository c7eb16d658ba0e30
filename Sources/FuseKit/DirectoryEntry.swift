/// One name in a directory listing.
public struct DirectoryEntry: Sendable, Equatable {
    public var name: String
    public var inode: UInt64
    public var isDirectory: Bool
    public init(name: String, inode: UInt64, isDirectory: Bool) {
        self.name = name
        self.inode = inode
        self.isDirectory = isDirectory
    }
}
