/// How long the kernel may keep what it learnt of a node (docs/design.md,
/// "Nodes and notifications").
enum KernelCacheTime {
    /// Names and attributes that change only with a task change the daemon
    /// announces (R7): directories, `queue/new`, `url`, `wait`,
    /// finished files, and the name of every node. Long enough that a
    /// script polling `status` every few seconds, or `status --watch` every
    /// second, walks its path without a round trip; every change that makes
    /// one stale is invalidated at once (`TaskChangeNotices`), so the length
    /// is a cost of memory, not of freshness.
    static let announced = 10.0
    /// Attributes that move on their own (the size of `status`, of logs, of
    /// a growing data file): asked afresh on every use.
    static let live = 0.0
}
