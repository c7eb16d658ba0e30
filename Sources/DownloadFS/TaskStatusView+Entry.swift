import DownloadFSCore
import Engine

extension TaskStatusView {
    /// The status of a task as shown now: live bytes and speed while it downloads.
    init(_ entry: TaskEntry, now: Double) {
        let record = entry.record
        let downloading = record.state == .downloading
        self.init(id: record.taskID, name: record.fileName, folder: record.folder, url: URLNormalizer.maskingPassword(record.url), state: record.state,
                  downloaded: entry.bytes,
                  total: record.total,
                  bytesPerSecond: downloading ? entry.live?.bytesPerSecond(now: now) ?? 0 : 0,
                  connections: record.transferring ? entry.live?.connections.load(ordering: .relaxed) ?? 0 : 0,
                  attempts: record.attempts, error: record.error, retryAt: record.retryAt,
                  added: record.addedAt, completed: record.completedAt)
    }
}
