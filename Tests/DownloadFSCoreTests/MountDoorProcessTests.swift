import XCTest

@testable import DownloadFSCore

/// R70: `downloadfs unmount` stops exactly the doors `mount --rpc` started for that mount.
final class MountDoorProcessTests: XCTestCase {
    private func cmdline(_ words: [String]) -> [UInt8] { words.flatMap { Array($0.utf8) + [0] } }

    private let stat = "4242 (downloadfs) S 100 4242 4242 0 -1 4194560 905 0 0 0 1 2 0 0 20 0 5 0"

    func testTheDaemonsChildRunningRpcForItsMountpointWithTheMarkerIsADoor() {
        let words = ["/usr/bin/downloadfs"] + MountDoorProcess.arguments(mountpoint: "/home/a/dl", options: ["--rpc-listen-port", "6801"])
        XCTAssertEqual(words, ["/usr/bin/downloadfs", "rpc", "/home/a/dl", "--stop-mount-on-shutdown", "--rpc-listen-port", "6801"])
        XCTAssertTrue(MountDoorProcess.isDoor(statLine: stat, commandLine: cmdline(words), daemon: 100, mountpoint: "/home/a/dl"))
    }

    func testAnotherParentAnotherMountOrAHandStartedDoorIsNot() {
        let door = cmdline(["/usr/bin/downloadfs", "rpc", "/home/a/dl", "--stop-mount-on-shutdown"])
        XCTAssertFalse(MountDoorProcess.isDoor(statLine: stat, commandLine: door, daemon: 101, mountpoint: "/home/a/dl"))
        XCTAssertFalse(MountDoorProcess.isDoor(statLine: stat, commandLine: door, daemon: 100, mountpoint: "/home/a/dl2"))
        // Started by hand (no marker): `downloadfs unmount` leaves it, and it stops when the mount goes.
        let byHand = cmdline(["/usr/bin/downloadfs", "rpc", "/home/a/dl", "--rpc-listen-port", "6801"])
        XCTAssertFalse(MountDoorProcess.isDoor(statLine: stat, commandLine: byHand, daemon: 100, mountpoint: "/home/a/dl"))
        XCTAssertFalse(MountDoorProcess.isDoor(statLine: stat, commandLine: cmdline(["/usr/bin/downloadfs", "rpc"]),
                                               daemon: 100, mountpoint: "/home/a/dl"))
        XCTAssertFalse(MountDoorProcess.isDoor(statLine: stat, commandLine: [], daemon: 100, mountpoint: "/home/a/dl"))
    }

    func testADoorThatCrashedComesBackAndOneThatExitedDoesNot() {
        XCTAssertEqual(MountDoorProcess.restartDelay(endedBySignal: true, mountStopping: false, failedStarts: 0), 1)
        XCTAssertNil(MountDoorProcess.restartDelay(endedBySignal: false, mountStopping: false, failedStarts: 0),
                     "exited by itself: its mount went, aria2.shutdown, or a SIGTERM it handled")
        XCTAssertNil(MountDoorProcess.restartDelay(endedBySignal: true, mountStopping: true, failedStarts: 0))
    }

    func testEachFailedStartDoublesTheWaitUpToAMinute() {
        let waits = (0...8).compactMap { MountDoorProcess.restartDelay(endedBySignal: true, mountStopping: false, failedStarts: $0) }
        XCTAssertEqual(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60])
        XCTAssertEqual(MountDoorProcess.restartDelay(endedBySignal: true, mountStopping: false, failedStarts: 1000), 60)
    }

    func testTheDoorsFirstLineSaysWhetherItListens() {
        XCTAssertNil(MountDoorProcess.startFailure(firstLine: MountDoorProcess.readyLine, within: 15))
        let inUse = "downloadfs: rpc: port 6800 is in use: another program listens on it"
        XCTAssertEqual(MountDoorProcess.startFailure(firstLine: inUse, within: 15), inUse)
        for silent in [nil, ""] {
            XCTAssertEqual(MountDoorProcess.startFailure(firstLine: silent, within: 15),
                           "downloadfs: mount --rpc: downloadfs rpc did not start within 15 s")
        }
    }
}
