import Foundation

/// A fresh directory under the system's temp dir, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("downloadfs-catalog-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() throws { try FileManager.default.removeItem(at: url) }
}
