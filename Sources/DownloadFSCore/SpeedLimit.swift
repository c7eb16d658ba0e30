/// The limit one running transfer gets (R30, R31): its own limit and an
/// equal share of the global one, whichever is lower; 0 means none.
public enum SpeedLimit {
    public static func effective(task: Int64, global: Int64, running: Int) -> Int64 {
        let share = global > 0 ? max(1, global / Int64(max(1, running))) : 0
        switch (task > 0, share > 0) {
        case (true, true): return min(task, share)
        case (true, false): return task
        case (false, true): return share
        case (false, false): return 0
        }
    }
}
