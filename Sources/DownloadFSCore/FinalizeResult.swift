import Foundation

/// What moving a whole download into STATE/files gave (R42, R43).
public enum FinalizeResult: Sendable, Equatable {
    /// In place under `name` (another name than planned when that one was
    /// taken on disk by then), since `at` (whole seconds: `FinishedFileTime`).
    case moved(name: String, at: Date)
    /// The rename failed: the sentence for `status`.
    case failed(String)
}
