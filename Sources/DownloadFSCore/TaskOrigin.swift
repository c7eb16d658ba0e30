import Foundation

/// What a task was added with: its URL, its options and when.
///
/// None of it changes once the task exists, and every task is held twice
/// (the loop's and the copy FUSE threads read), so it lives in one shared,
/// immutable instance rather than in each copy of the task: at 100,000 tasks
/// that is 100 bytes less per task per copy, and copying a task (every
/// event) retains one reference instead of four fields.
public final class TaskOrigin: Sendable, Equatable {
    public let url: String
    /// R13 key: the same normalised URL is downloaded once.
    public let normalizedURL: String
    public let options: TaskOptions
    public let addedAt: Date

    public init(url: String, normalizedURL: String, options: TaskOptions, addedAt: Date) {
        self.url = url
        // Most URLs are already normal: share the one string.
        self.normalizedURL = normalizedURL == url ? url : normalizedURL
        self.options = options
        self.addedAt = addedAt
    }

    public static func == (a: TaskOrigin, b: TaskOrigin) -> Bool {
        a === b || (a.url == b.url && a.normalizedURL == b.normalizedURL && a.options == b.options && a.addedAt == b.addedAt)
    }
}
