import TestSupport
import XCTest
@testable import DownloadFS

/// Inodes computed from task ids (docs/design.md, "Inodes"): every node has
/// one inode, no two nodes share one, and an inode always names the same node.
final class NodeIDTests: XCTestCase {
    /// The highest task id whose seven nodes stay below the `files/` entries:
    /// `0x1000 + id * 8 + 6 < 2^48`.
    private let highestTaskID: Int64 = (1 << 45) - 513

    private let fixed: [NodeID] = [.root, .queue, .files, .rootStatus, .rootCtl, .rootLog, .queueNew, .events]

    private func taskNodes(_ id: Int64) -> [NodeID] {
        [.taskDir(id), .taskStatus(id), .taskURL(id), .taskCtl(id), .taskLog(id), .taskWait(id), .taskData(id)]
    }

    /// Every node of task `id`, its `files/` entry included.
    private func nodes(_ id: Int64) -> [NodeID] { taskNodes(id) + [.finished(id)] }

    /// Ids across the range: the first ones, powers of two, and the last the scheme allows.
    private var sampleIDs: [Int64] {
        Array(1...300) + (9...44).flatMap { [Int64(1) << $0 - 1, Int64(1) << $0, Int64(1) << $0 + 1] }
            + (highestTaskID - 300...highestTaskID)
    }

    func test_R5_everyNodeRoundTripsThroughItsInode() {
        var all = fixed
        for id in sampleIDs { all += nodes(id) }
        all += [UInt64(0), 1, 2, 1000, 1 << 32, (1 << 56) - 1].map(NodeID.dropIn)
        for node in all {
            XCTAssertEqual(NodeID(inode: node.inode), node, "\(node) → inode \(node.inode)")
        }
    }

    func test_R5_randomIDsRoundTripThroughTheirInodes() {
        var random = SeededGenerator.fromEnvironment()
        for _ in 0..<100_000 {
            let id = Int64.random(in: 1...highestTaskID, using: &random)
            for node in nodes(id) where NodeID(inode: node.inode) != node {
                XCTFail("\(node) → inode \(node.inode) → \(String(describing: NodeID(inode: node.inode))), \(random)")
                return
            }
        }
    }

    func test_R5_distinctNodesNeverShareAnInode() {
        var all = fixed
        for id in sampleIDs { all += nodes(id) }
        all += (0..<2_000).map { NodeID.dropIn(UInt64($0)) }
        var owner: [UInt64: NodeID] = [:]
        for node in all {
            if let other = owner.updateValue(node, forKey: node.inode), other != node {
                XCTFail("\(node) and \(other) share inode \(node.inode)")
            }
        }
    }

    func test_R5_filesEntriesAndTaskNodesNeverCollide() {
        let highestTaskInode = NodeID.taskData(highestTaskID).inode
        let lowestFilesInode = NodeID.finished(1).inode
        XCTAssertLessThan(highestTaskInode, lowestFilesInode)
        XCTAssertLessThan(NodeID.finished(highestTaskID).inode, NodeID.dropIn(0).inode)
        XCTAssertLessThan(fixed.map(\.inode).max()!, NodeID.taskDir(1).inode)

        var random = SeededGenerator.fromEnvironment()
        for _ in 0..<100_000 {
            let a = Int64.random(in: 1...highestTaskID, using: &random)
            let b = Int64.random(in: 1...highestTaskID, using: &random)
            let finished = NodeID.finished(a).inode
            for node in taskNodes(b) where node.inode == finished {
                XCTFail("files/ entry of task \(a) and \(node) share inode \(finished), \(random)")
                return
            }
        }
    }

    func test_R5_theSchemeLimitIsWhereTaskNodesReachTheFilesEntries() {
        // One id past the limit, the task's data node would be read back as a files/ entry.
        let past = highestTaskID + 1
        XCTAssertNotEqual(NodeID(inode: NodeID.taskData(past).inode), .taskData(past))
        XCTAssertEqual(NodeID(inode: NodeID.taskData(highestTaskID).inode), .taskData(highestTaskID))
    }

    /// R34: plain files take their backing file's inode number, above every other range.
    func test_R34_plainFilesRoundTripAboveEveryOtherRange() {
        let fileInodes: [UInt64] = [0, 1, 2, 11, 1 << 20, 1 << 32, (1 << 32) + 5, 1 << 48, 1 << 56, (1 << 62) - 1]
        for fileInode in fileInodes {
            guard let node = NodeID.stored(fileInode: fileInode) else { return XCTFail("\(fileInode) refused") }
            XCTAssertEqual(NodeID(inode: node.inode), node, "plain file inode \(fileInode)")
            XCTAssertGreaterThan(node.inode, NodeID.dropIn((1 << 62) - (1 << 56) - 1).inode)
            XCTAssertGreaterThan(node.inode, NodeID.finished(highestTaskID).inode)
        }
        XCTAssertNil(NodeID.stored(fileInode: 1 << 62), "past the range")
        XCTAssertNil(NodeID.stored(fileInode: .max))
        XCTAssertEqual(NodeID(inode: NodeID.dropIn((1 << 62) - (1 << 56) - 1).inode),
                       .dropIn((1 << 62) - (1 << 56) - 1), "the last drop-in stays a drop-in")
        var random = SeededGenerator.fromEnvironment()
        for _ in 0..<100_000 {
            let fileInode = UInt64.random(in: 0..<(1 << 62), using: &random)
            let node = NodeID.stored(fileInode: fileInode)!
            if NodeID(inode: node.inode) != node { return XCTFail("\(node), \(random)") }
        }
    }

    func test_R5_inodesOfNoNodeAreRefused() {
        var none: [UInt64] = [0, 9, 100, 0xFFF]
        for id in [Int64(1), 2, 1000, highestTaskID] {
            none.append(NodeID.taskDir(id).inode + 7)  // the eighth slot of each task is unused
        }
        for inode in none {
            XCTAssertNil(NodeID(inode: inode), "inode \(inode)")
        }
    }
}
