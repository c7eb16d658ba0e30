import DownloadFSCore
import Foundation

/// Tasks for catalog tests, with the id already given (the loop gives ids).
enum TestTask {
    static let added = Date(timeIntervalSince1970: 1_800_000_000)

    static func make(_ id: Int64, state: TaskState = .queued) -> DownloadTask {
        let url = "https://example.org/file-\(id).iso"
        var task = DownloadTask(url: url, normalizedURL: url, options: TaskOptions(), name: "file-\(id).iso",
                                addedAt: added, position: id)
        task.id = id
        task.state = state
        return task
    }
}
