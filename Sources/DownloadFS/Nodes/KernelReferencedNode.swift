/// A node the daemon keeps something for while the kernel holds its inode
/// (a plain file's name, `StoredEntryNames`). `referenced` is called for each
/// entry reply that hands the kernel the inode (a `lookup`), before the
/// reply goes; the kernel's `forget` gives the references back. Nodes of
/// tasks need none of this: their inodes name them by themselves (`NodeID`).
protocol KernelReferencedNode: Node {
    func referenced()
}
