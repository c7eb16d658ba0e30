import DownloadFSCore
import Foundation
import GRDB

/// A task is a row of the catalog's `task` table; the in-memory fields
/// (`serial`, `transferring`, …) are not stored.
///
/// Read and written column by column, not through Codable: loading 100,000
/// tasks at mount decoded each row through a keyed container, and the
/// batch statements bind these same values in this same order.
extension DownloadTask: FetchableRecord, TableRecord {
    public static let databaseTableName = "task"

    /// The columns that change after a task is added, in the order
    /// `changingValues` gives them.
    static let changingColumns = [
        "name", "state", "downloaded", "total", "attempts", "failuresWithoutData", "error", "completedAt",
        "position", "etag", "lastModified", "contentType", "finalURL", "speedLimit", "retryAt", "ranges", "split",
        "droppedMirrors",
    ]

    /// Every stored column: the ones fixed at `add` (url, options, addedAt
    /// never change), then the changing ones.
    static let storedColumns = ["id", "url", "normalizedURL", "options", "addedAt"] + changingColumns

    /// Every fetch selects the stored columns in this order, so a row is
    /// read by position: by name, each of 23 columns was a case-insensitive
    /// search of the row's names, for each of a million tasks at mount.
    public static var databaseSelection: [any SQLSelectable] { storedColumns.map { Column($0) } }

    /// Where each column is in a fetched row.
    private static func at(_ column: String) -> Int { storedColumns.firstIndex(of: column)! }
    private static let positions = (
        id: at("id"), url: at("url"), normalizedURL: at("normalizedURL"), options: at("options"),
        addedAt: at("addedAt"), name: at("name"), state: at("state"), downloaded: at("downloaded"),
        total: at("total"), attempts: at("attempts"), failuresWithoutData: at("failuresWithoutData"),
        error: at("error"), completedAt: at("completedAt"), position: at("position"), etag: at("etag"),
        lastModified: at("lastModified"), contentType: at("contentType"), finalURL: at("finalURL"),
        speedLimit: at("speedLimit"), retryAt: at("retryAt"), ranges: at("ranges"), split: at("split"),
        droppedMirrors: at("droppedMirrors"))

    /// `options` as JSON. One coder for every row: making one per row cost
    /// an allocation per task added or loaded (100,000 at a time).
    private static let optionsEncoder = JSONEncoder()
    private static let optionsDecoder = JSONDecoder()
    /// Most tasks have no options: their JSON is this, written and read
    /// without a coder (a fifth of a million-task mount was JSON decoding).
    private static let noOptionsText = String(decoding: (try? optionsEncoder.encode(TaskOptions())) ?? Data(), as: UTF8.self)

    /// Binds every stored column, in `storedColumns` order.
    func bindStored(_ binder: inout StatementBinder) throws(CatalogError) {
        let options: String
        if self.options == TaskOptions() {
            options = Self.noOptionsText
        } else {
            do { options = String(decoding: try Self.optionsEncoder.encode(self.options), as: UTF8.self) } catch {
                throw CatalogError("store task \(taskID)'s options", error)
            }
        }
        try binder.bind(id)
        try binder.bind(url)
        try binder.bind(normalizedURL)
        try binder.bind(options)
        try binder.bind(addedAt)
        try bindChanging(&binder)
    }

    /// Binds the columns that change after `add`, in `changingColumns` order.
    func bindChanging(_ binder: inout StatementBinder) throws(CatalogError) {
        try binder.bind(name)
        try binder.bind(state.rawValue)
        try binder.bind(downloaded)
        try binder.bind(total)
        try binder.bind(attempts)
        try binder.bind(failuresWithoutData)
        try binder.bind(error)
        try binder.bind(completedAt)
        try binder.bind(position)
        try binder.bind(etag)
        try binder.bind(lastModified)
        try binder.bind(contentType)
        try binder.bind(finalURL)
        try binder.bind(speedLimit)
        try binder.bind(retryAt)
        try binder.bind(ranges.encoded)
        try binder.bind(split)
        try binder.bind(droppedMirrors.joined(separator: "\n"))
    }

    public init(row: Row) throws {
        let at = Self.positions
        let optionsText: String = row[at.options]
        let options = optionsText == Self.noOptionsText ? TaskOptions()
            : try Self.optionsDecoder.decode(TaskOptions.self, from: Data(optionsText.utf8))
        let stateText: String = row[at.state]
        guard let state = TaskState(rawValue: stateText) else {
            throw CatalogError("task \(row[at.id] as Int64? ?? 0) has an unknown state \"\(stateText)\"")
        }
        self.init(origin: TaskOrigin(url: row[at.url], normalizedURL: row[at.normalizedURL], options: options,
                                     addedAt: row[at.addedAt]),
                  name: row[at.name], position: row[at.position])
        id = row[at.id]
        self.state = state
        // A ranges column that does not parse (edited by hand, damaged) is
        // not trusted beyond the count: reconciling with the partial file
        // at mount then cuts it back to what is there (R51).
        let rangesText: String = row[at.ranges]
        ranges = ByteRanges(encoded: rangesText) ?? ByteRanges([0..<max(0, row[at.downloaded] as Int64)])
        total = row[at.total]
        attempts = row[at.attempts]
        failuresWithoutData = row[at.failuresWithoutData]
        error = row[at.error]
        completedAt = row[at.completedAt]
        remote = RemoteFacts(etag: row[at.etag], lastModified: row[at.lastModified], contentType: row[at.contentType],
                             finalURL: row[at.finalURL])
        speedLimit = row[at.speedLimit]
        // Read from the column, not from `options`: `ctl split N` changes it after the add.
        split = row[at.split]
        retryAt = row[at.retryAt]
        let dropped: String = row[at.droppedMirrors]
        droppedMirrors = dropped.isEmpty ? [] : dropped.split(separator: "\n").map(String.init)
    }
}
