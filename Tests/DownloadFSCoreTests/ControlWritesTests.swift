import XCTest
@testable import DownloadFSCore

/// R30, R31, R6: the writes to one open `ctl`, each checked whole.
final class ControlWritesTests: XCTestCase {
    private func commands(_ writes: [String], global: Bool = false) -> [String] {
        var file = ControlWrites()
        return writes.map { text in
            switch file.command(in: text, parse: global ? ControlCommand.parseGlobal : ControlCommand.parseTask) {
            case .success(let command?): "\(command)"
            case .success(nil): "nothing"
            case .failure: "refused"
            }
        }
    }

    func test_R30_R6_aWriteWithACommandAndAnythingElseIsRefusedWhole() {
        XCTAssertEqual(commands(["pause\nfrobnicate\n"]), ["refused"])
        XCTAssertEqual(commands(["pause\nresume\n"]), ["refused"])
        XCTAssertEqual(commands(["max-active 7\nbogus\n"], global: true), ["refused"])
    }

    func test_R30_blankLinesAroundTheCommandInOneWriteAreIgnored() {
        XCTAssertEqual(commands(["limit 1M\n\n"]), ["limit(1048576)"])
        XCTAssertEqual(commands(["\npause\n\n"]), ["pause"])
    }

    func test_R30_aBlankWriteAfterAnotherIsTheEndOfItsText() {
        // `printf 'limit 1M\n\n' > ctl` from bash: two writes.
        XCTAssertEqual(commands(["limit 1M\n", "\n"]), ["limit(1048576)", "nothing"])
        XCTAssertEqual(commands(["max-active 7\n", "\n", " \n"], global: true), ["maxActive(7)", "nothing", "nothing"])
        // After a refused write too: it was already reported.
        XCTAssertEqual(commands(["frobnicate\n", "\n", "pause\n"]), ["refused", "nothing", "pause"])
    }

    func test_R30_aBlankFirstWriteHoldsNoCommandAndIsRefused() {
        XCTAssertEqual(commands(["\n"]), ["refused"])
        XCTAssertEqual(commands(["\n", "pause\n"]), ["refused", "pause"])
        XCTAssertEqual(commands([" \n"], global: true), ["refused"])
    }
}
