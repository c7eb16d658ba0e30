import Foundation
import XCTest
@testable import DownloadFSCore

/// R30, R31: reading a `ctl` file shows the settings in force, in the words
/// the file takes, and each line written back is accepted with the same value.
final class ControlSettingsTests: XCTestCase {
    private func task(_ options: TaskOptions = TaskOptions()) -> DownloadTask {
        DownloadTask(url: "https://h/a", normalizedURL: "https://h/a", options: options, name: "a",
                     addedAt: Date(timeIntervalSince1970: 1_800_000_000), position: 1)
    }

    private let defaults = MountSettings(maxActive: 3, globalLimit: 0, globalSplit: nil)

    func test_R31_theRootCtlShowsMaxActiveLimitAndSplit() {
        XCTAssertEqual(ControlSettings.mount(defaults), "max-active 3\nlimit 0\nsplit 4\n")
        XCTAssertEqual(ControlSettings.mount(MountSettings(maxActive: 5, globalLimit: 2 << 20, globalSplit: 8)),
                       "max-active 5\nlimit 2M\nsplit 8\n")
    }

    func test_R30_aTaskCtlShowsItsOwnLimitAndTheSplitInForce() {
        XCTAssertEqual(ControlSettings.task(task(), mount: defaults), "limit 0\nsplit 4\n",
                       "no split anywhere: the default's connections")
        let mountSplit = MountSettings(maxActive: 3, globalLimit: 1 << 20, globalSplit: 6)
        XCTAssertEqual(ControlSettings.task(task(), mount: mountSplit), "limit 0\nsplit 6\n",
                       "the mount's split; the global limit is the root ctl's, not the task's")
        XCTAssertEqual(ControlSettings.task(task(TaskOptions(maxDownloadLimit: 500 << 10, split: 2)), mount: mountSplit),
                       "limit 500K\nsplit 2\n")
    }

    /// Every line each file shows is a command that file takes, with the value shown.
    func test_R30_R31_everyLineWrittenBackIsAcceptedWithTheSameValue() {
        let settings = MountSettings(maxActive: 7, globalLimit: 1_572_864, globalSplit: 3)
        let rootLines = ControlSettings.mount(settings).split(separator: "\n").map(String.init)
        XCTAssertEqual(rootLines.map { try? ControlCommand.parseGlobal($0).get() },
                       [.maxActive(7), .globalLimit(1_572_864), .globalSplit(3)])
        let own = task(TaskOptions(maxDownloadLimit: 1000, split: 16))
        let taskLines = ControlSettings.task(own, mount: settings).split(separator: "\n").map(String.init)
        XCTAssertEqual(taskLines.map { try? ControlCommand.parseTask($0).get() }, [.limit(1000), .split(16)])
    }

    func test_R31_theTaskSetReportsWhatTheRootCtlSet() {
        var set = TaskSet(machine: TaskMachine(retry: RetryPolicy(maxTries: 3)), maxActive: 3, globalLimit: 0,
                          globalSplit: nil, seed: 1)
        XCTAssertEqual(set.settings, defaults)
        var turn = TaskSetTurn()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for (token, command) in [ControlCommand.maxActive(5), .globalLimit(2 << 20), .globalSplit(4)].enumerated() {
            set.handle(.controlGlobal(command, token: UInt64(token)), now: now, monotonic: 1, into: &turn)
        }
        XCTAssertEqual(set.settings, MountSettings(maxActive: 5, globalLimit: 2 << 20, globalSplit: 4))
    }
}
