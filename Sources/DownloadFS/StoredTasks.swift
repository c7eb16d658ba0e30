import CLinux
import Catalog
import DownloadFSCore
import Foundation
import Glibc

/// The catalog's tasks taken into the task set at mount, each reconciled
/// with what is on disk (R50, R51), and partial data no task owns kept
/// aside. Runs before the mount is up.
struct StoredTasks {
    let state: StateDirectory
    let catalog: Catalog
    let log: EventLog

    func load(into set: inout TaskSet) throws(DaemonError) {
        for note in state.secure() { log.daemon(note, level: .warning) }
        var batch = CatalogBatch()
        let now = Date()
        // One listing of STATE/partial/, not a stat per task: a million
        // queued tasks that never started have no partial file to look for.
        let partials = partialSizes()
        do {
            set.reserveCapacity(try catalog.taskCount())
            // Row by row: 100,000 tasks never sit in memory twice.
            try catalog.forEachTask { task in
                let step = set.load(task, disk: dataOnDisk(task, partials: partials), now: now)
                if step.task.differsInCatalog(from: task) { batch.updates.append(step.task) }
                batch.events += step.log.map { EventRecord(taskID: task.taskID, at: now, message: $0) }
            }
            let moved = set.finishLoading()
            let ids = Set(moved.map(\.taskID))
            batch.updates.removeAll { ids.contains($0.taskID) }
            batch.updates += moved
            try catalog.commit(batch)
        } catch { throw DaemonError(error.message) }
        do { try catalog.trimLogs() } catch { log.daemon(error.message, level: .warning) }
        keepOrphanedPartials(set.tasks)
    }

    /// What is on disk for a stored task (R50, R51); only what reconciling it needs.
    private func dataOnDisk(_ task: DownloadTask, partials: [Int64: Int64]) -> DataOnDisk {
        let partial = task.state == .completed ? nil : partials[task.taskID]
        let needsFinished = task.state == .completed || (partial == nil && task.downloaded > 0 && task.state.isRunning)
        return DataOnDisk(partialSize: partial, finishedSize: needsFinished ? fileSize(state.file(task.name)) : nil)
    }

    /// The size of each partial file, by task id (names that are not ids
    /// are left to `keepOrphanedPartials`).
    private func partialSizes() -> [Int64: Int64] {
        var sizes: [Int64: Int64] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: state.partialDir)) ?? []
        for name in names {
            guard let id = Int64(name), String(id) == name, let size = fileSize(state.partial(id)) else { continue }
            sizes[id] = size
        }
        return sizes
    }

    private func fileSize(_ path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// Partial data with no unfinished task behind it (the catalog was lost
    /// or replaced) is moved to `STATE/orphaned/`, never deleted: losing the
    /// catalog is the user's doing, deleting their data would be ours.
    private func keepOrphanedPartials(_ tasks: TaskIndex) {
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: state.partialDir)) ?? []
        for name in partials {
            if let task = tasks[Int64(name) ?? -1], task.state != .completed { continue }
            mkdir(state.orphanedDir, 0o700)
            var target = state.orphanedDir + "/" + name
            var n = 1
            while access(target, F_OK) == 0 {
                target = state.orphanedDir + "/\(name).\(n)"
                n += 1
            }
            if Glibc.rename(state.partialDir + "/" + name, target) == 0 {
                log.daemon("partial data \(name) belongs to no task in the catalog; kept it as \(target) "
                    + "(delete it when you do not need it)", level: .warning)
            } else {
                log.daemon("partial data \(name) belongs to no task in the catalog and could not be moved to "
                    + "\(target): \(String(cString: strerror(errno)))", level: .warning)
            }
        }
    }
}
