import XCTest
@testable import DownloadFSCore

/// R30 (`queue/<id>/ctl`) and R31 (`MOUNT/ctl`) command parsing.
final class ControlCommandTests: XCTestCase {
    private func task(_ text: String) -> ControlCommand? { try? ControlCommand.parseTask(text).get() }
    private func global(_ text: String) -> ControlCommand? { try? ControlCommand.parseGlobal(text).get() }

    func test_R30_eachTaskCommand() {
        XCTAssertEqual(task("pause"), .pause)
        XCTAssertEqual(task("resume\n"), .resume)
        XCTAssertEqual(task("  start \n"), .start)
        XCTAssertEqual(task("top\n"), .top)
        XCTAssertEqual(task("limit 500K\n"), .limit(512_000))
        XCTAssertEqual(task("limit 0"), .limit(0))
        XCTAssertEqual(task("split 4\n"), .split(4))
        XCTAssertEqual(task("  split   16 "), .split(16))
        XCTAssertEqual(task("split 1"), .split(1))
        XCTAssertEqual(task("move 0"), .move(0))
        XCTAssertEqual(task("move 12\n"), .move(12))
        // Past the end puts it last (R30), however many digits.
        XCTAssertEqual(task("move 99999999999999999999999999"), .move(.max))
    }

    func test_R30_anythingElseIsRefused() {
        for text in ["", "\n", "stop", "pause now", "limit", "limit fast", "limit 1 2", "cancel", "resume-all",
                     "max-active 2", "top\u{1}", "split", "split 0", "split 17", "split x", "split 2 3", "split -1",
                     "move", "move -1", "move +3", "move 1.5", "move x", "move 1 2"] {
            XCTAssertNil(task(text), text.debugDescription)
        }
    }

    func test_R30_refusalSaysWhatIsAccepted() {
        guard case .failure(let error) = ControlCommand.parseTask("stop\n") else { return XCTFail() }
        XCTAssertEqual(error.message, "unknown command \"stop\" (use pause, resume, start, top, move N, limit RATE, split N or forget)")
    }

    func test_R30_knownCommandWithWrongArgumentsIsToldItsForm() {
        guard case .failure(let limit) = ControlCommand.parseTask("limit\n"),
              case .failure(let pause) = ControlCommand.parseTask("pause now"),
              case .failure(let maxActive) = ControlCommand.parseGlobal("max-active") else { return XCTFail() }
        XCTAssertEqual(limit.message, "\"limit\" is not how limit is written (use limit RATE)")
        XCTAssertEqual(pause.message, "\"pause now\" is not how pause is written (use pause)")
        XCTAssertEqual(maxActive.message, "\"max-active\" is not how max-active is written (use max-active N)")
    }

    func test_R30_R31_R18_aSplitOutsideOneToSixteenIsRefusedWithTheRange() {
        for parse in [ControlCommand.parseTask, ControlCommand.parseGlobal] {
            for word in ["0", "17", "-1", "+2", "2.5", "many", "99999999999999999999"] {
                guard case .failure(let error) = parse("split \(word)\n") else { return XCTFail("accepted split \(word)") }
                XCTAssertEqual(error.message, "bad split \"\(word)\" (use a whole number from 1 to 16)")
            }
            guard case .failure(let bare) = parse("split\n") else { return XCTFail("accepted a bare split") }
            XCTAssertEqual(bare.message, "\"split\" is not how split is written (use split N)")
        }
    }

    func test_R30_R31_aLimitUnderOneBytePerSecondIsRefusedNotTakenAsNone() {
        for parse in [ControlCommand.parseTask, ControlCommand.parseGlobal] {
            guard case .failure(let error) = parse("limit 0.0001K\n") else { return XCTFail("accepted") }
            XCTAssertEqual(error.message, "rate \"0.0001K\" is below the smallest limit, 1 byte/s (use 1 or more, or 0 for none)")
        }
        XCTAssertEqual(task("limit 0.0"), .limit(0))
        XCTAssertEqual(global("limit 0K"), .globalLimit(0))
        XCTAssertEqual(task("limit 1"), .limit(1))
    }

    func test_R31_eachGlobalCommand() {
        XCTAssertEqual(global("max-active 5\n"), .maxActive(5))
        XCTAssertEqual(global("limit 1.5MiB"), .globalLimit(1_572_864))
        XCTAssertEqual(global("pause-all\n"), .pauseAll)
        XCTAssertEqual(global("resume-all"), .resumeAll)
        XCTAssertEqual(global("split 8\n"), .globalSplit(8))
        XCTAssertEqual(global("split 1"), .globalSplit(1))
        XCTAssertEqual(global("split 16"), .globalSplit(16))
    }

    func test_R31_refusalSaysWhatIsAccepted() {
        guard case .failure(let error) = ControlCommand.parseGlobal("stop-all\n") else { return XCTFail() }
        XCTAssertEqual(error.message,
                       "unknown command \"stop-all\" (use max-active N, limit RATE, split N, pause-all, resume-all or forget-completed)")
    }

    /// A log line shows control characters as two hex digits each: "\x0a" then "b" is not "\xab".
    func test_refusalsShowControlCharactersUnambiguously() {
        guard case .failure(let error) = ControlCommand.parseGlobal("max-active 2\nsplit 3") else { return XCTFail() }
        XCTAssertTrue(error.message.contains("\"max-active 2\\x0asplit 3\""), error.message)
        guard case .failure(let escape) = ControlCommand.parseGlobal("max-active \u{1b}[31m9999") else { return XCTFail() }
        XCTAssertTrue(escape.message.hasPrefix("bad max-active \"\\x1b[31m9999\""), escape.message)
    }

    func test_R31_anythingElseIsRefused() {
        for text in ["", "max-active", "max-active 0", "max-active -1", "max-active x", "max-active 1001",
                     "max-active 2 3", "limit", "limit -5", "pause-all now", "pause", "stop-all",
                     "split", "split 0", "split 17", "split 4 4"] {
            XCTAssertNil(global(text), text.debugDescription)
        }
    }

    /// `form` with its placeholder given a value each parser takes.
    private func example(_ form: String) -> String {
        form.replacingOccurrences(of: "RATE", with: "2M").replacingOccurrences(of: "N", with: "2")
    }

    /// The lists the man page and the refusals show are the parsers' own:
    /// each form parses, and a form's word alone or with a stray word does not
    /// pass for another command.
    func test_R30_R31_theListedFormsAreTheOnesTheParsersTake() {
        for form in ControlCommand.taskForms {
            XCTAssertNotNil(task(example(form)), form)
            XCTAssertNil(task(example(form) + " extra"), form)
        }
        for form in ControlCommand.globalForms {
            XCTAssertNotNil(global(example(form)), form)
            XCTAssertNil(global(example(form) + " extra"), form)
        }
        XCTAssertEqual(Set(ControlCommand.taskForms).count, ControlCommand.taskForms.count)
        XCTAssertEqual(Set(ControlCommand.globalForms).count, ControlCommand.globalForms.count)
    }
}
