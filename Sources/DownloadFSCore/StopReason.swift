/// Why the daemon stopped a running transfer and what the task becomes once
/// the engine reports it stopped (with its final, synced count).
public enum StopReason: Sendable, Equatable {
    /// `pause`: the task is shown `paused` only with its final count (R30).
    case pause
    /// `resume` while a pause was still under way: back to the waiting line.
    case requeue
}
