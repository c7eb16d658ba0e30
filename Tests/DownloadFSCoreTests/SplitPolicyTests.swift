import DownloadFSCore
import XCTest

final class SplitPolicyTests: XCTestCase {
    private let mib: Int64 = 1 << 20

    func test_R18_anAskedSplitIsTakenWithTheOneMiBFloor() {
        XCTAssertEqual(SplitPolicy.choose(task: 8, mount: 2), SplitPolicy(split: 8, minimumSegment: mib))
        XCTAssertEqual(SplitPolicy.choose(task: nil, mount: 2), SplitPolicy(split: 2, minimumSegment: mib))
        let asked = SplitPolicy.choose(task: 3, mount: nil)
        XCTAssertEqual(asked.current(runningFor: 0, bytesPerSecond: 0), 3, "asked for: all of it from the start")
        XCTAssertEqual(asked.current(runningFor: 10, bytesPerSecond: 1e12), 3)
    }

    func test_R18_theDefaultStartsOnOneConnectionAndOpensMoreOnlyWhenSlow() {
        let policy = SplitPolicy.choose(task: nil, mount: nil)
        XCTAssertTrue(policy.adaptive)
        XCTAssertEqual(policy.split, SplitPolicy.defaultSplit)
        XCTAssertEqual(policy.minimumSegment, 20 * mib, "files under 40 MiB keep one connection")
        XCTAssertEqual(policy.current(runningFor: 0, bytesPerSecond: 0), 1, "not judged before its first second")
        XCTAssertEqual(policy.current(runningFor: 0.9, bytesPerSecond: 1), 1)
        XCTAssertEqual(policy.current(runningFor: 1, bytesPerSecond: 16 * 1024 * 1024), SplitPolicy.defaultSplit,
                       "a capped connection: more of them")
        XCTAssertEqual(policy.current(runningFor: 5, bytesPerSecond: 700 * 1024 * 1024), 1,
                       "a fast one: more would only cost CPU")
        XCTAssertEqual(policy.current(runningFor: 5, bytesPerSecond: SplitPolicy.slowBelow), 1, "the bound itself is fast")
    }
}
