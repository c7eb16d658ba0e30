import XCTest
@testable import DownloadFSCore

/// R8: what mount.fuse3 runs for an fstab line becomes `downloadfs mount`.
final class MountHelperInvocationTests: XCTestCase {
    private let subcommands: Set<String> = ["mount", "unmount", "add", "status"]

    private func arguments(_ line: [String]) throws -> [String]? {
        try MountHelperInvocation.parse(line, subcommands: subcommands)?.mountArguments
    }

    func test_R8_fstabOptionsBecomeMountOptionsAndTheRestGoToFUSE() throws {
        // What mount.fuse3 passes for `noauto,user,max-active=4,allow_other`.
        XCTAssertEqual(try arguments(["/s", "/m", "-o", "rw,max-active=4,allow_other,dev,suid"]),
                       ["mount", "/m", "--state-dir", "/s", "--max-active=4", "--given-as-mount-option=max-active",
                        "-o", "rw", "-o", "allow_other"])
    }

    func test_R8_everyOwnOptionIsTaken() throws {
        let list = "max-active=2,max-tries=3,speed-limit=1M,split=4,max-connections-per-host=5,"
            + "ca-certificate=/etc/ca.pem,on-complete=notify-send done"
        XCTAssertEqual(try arguments(["/s", "/m", "-o", list]),
                       ["mount", "/m", "--state-dir", "/s", "--max-active=2", "--max-tries=3",
                        "--speed-limit=1M", "--split=4", "--max-connections-per-host=5",
                        "--ca-certificate=/etc/ca.pem", "--on-complete=notify-send done"]
                        + ["ca-certificate", "max-active", "max-connections-per-host", "max-tries", "on-complete",
                           "speed-limit", "split"].map { "--given-as-mount-option=\($0)" })
    }

    func test_R70_theRPCFlagsAndOptionsAreTaken() throws {
        XCTAssertEqual(try arguments(["/s", "/m", "-o", "rpc,rpc-listen-port=6801,rpc_allow_origin_all,allow_other"]),
                       ["mount", "/m", "--state-dir", "/s", "--rpc-listen-port=6801", "--rpc", "--rpc-allow-origin-all",
                        "--given-as-mount-option=rpc-listen-port", "-o", "allow_other"])
        XCTAssertThrowsError(try arguments(["/s", "/m", "-o", "rpc=yes"])) { error in
            XCTAssertEqual((error as? MountHelperError)?.message, "-o rpc=yes: takes no value")
        }
    }

    func test_R8_underscoresRepeatedListsAndGluedO() throws {
        XCTAssertEqual(try arguments(["/s", "/m", "-omax_active=4", "-o", "split=2"]),
                       ["mount", "/m", "--state-dir", "/s", "--max-active=4", "--split=2",
                        "--given-as-mount-option=max-active", "--given-as-mount-option=split"])
    }

    func test_R8_commentsAndMountsOwnWordsAreDropped() throws {
        XCTAssertEqual(try arguments(["/s", "/m", "-o", "x-systemd.automount,x-gvfs-show,noauto,user,_netdev,nofail,defaults,comment=x"]),
                       ["mount", "/m", "--state-dir", "/s"])
        XCTAssertEqual(try arguments(["/s", "/m"]), ["mount", "/m", "--state-dir", "/s"])
        XCTAssertEqual(try arguments(["/s", "/m", "-n", "-f"]), ["mount", "/m", "--state-dir", "/s", "--foreground"])
    }

    func test_R8_otherFormsAreNotTheHelpersAndAreLeftAlone() throws {
        XCTAssertNil(try arguments(["mount", "/m"]))
        XCTAssertNil(try arguments(["--help"]))
        // `downloadfs help add` is the parser's help, never a mount of ./add.
        XCTAssertNil(try arguments(["help", "add"]))
        XCTAssertNil(try arguments(["help", "mount", "-o", "x"]))
        XCTAssertNil(try arguments(["/s"]))
        XCTAssertNil(try arguments(["/s", "--version"]))
        XCTAssertNil(try arguments([]))
    }

    func test_R8_badListsSayWhatIsWrong() {
        XCTAssertThrowsError(try arguments(["/s", "/m", "-o"])) {
            XCTAssertEqual(($0 as? MountHelperError)?.message, "-o needs a list of options (e.g. -o max-active=4,allow_other)")
        }
        XCTAssertThrowsError(try arguments(["/s", "/m", "-o", "max-active"])) {
            XCTAssertEqual($0 as? MountHelperError, .missingValue("max-active"))
        }
        XCTAssertThrowsError(try arguments(["/s", "/m", "-o", "split="])) {
            XCTAssertEqual($0 as? MountHelperError, .missingValue("split"))
        }
        XCTAssertThrowsError(try arguments(["/s", "/m", "--bogus"])) {
            XCTAssertEqual($0 as? MountHelperError, .unexpected("--bogus"))
        }
    }

    /// Issue 25: a value that starts with a dash is still the option's value.
    func test_R8_aValueStartingWithADashStaysAValue() throws {
        XCTAssertEqual(try arguments(["/s", "/m", "-o", "max-active=-1,on-complete=-x"]),
                       ["mount", "/m", "--state-dir", "/s", "--max-active=-1", "--on-complete=-x",
                        "--given-as-mount-option=max-active", "--given-as-mount-option=on-complete"])
    }

    /// Issue 25: a count that is no number is refused naming `-o`, not `--max-active`.
    func test_R8_aWholeNumberOptionThatIsNoNumberIsRefusedAsWritten() {
        for (list, name, value) in [("max-active=four", "max-active", "four"), ("split=2.5", "split", "2.5"),
                                    ("max_tries=x", "max-tries", "x"), ("max-connections-per-host=8k", "max-connections-per-host", "8k")] {
            XCTAssertThrowsError(try arguments(["/s", "/m", "-o", list]), list) {
                XCTAssertEqual($0 as? MountHelperError, .refused(MountOptionRefusal(
                    name: name, value: value, problem: "must be a whole number", givenAsMountOption: true)))
            }
        }
        XCTAssertEqual(MountHelperError.refused(MountOptionRefusal(name: "split", value: "x", problem: "must be a whole number",
                                                                   givenAsMountOption: true)).message,
                       "-o split=x: must be a whole number")
    }

    /// Issue 25: an error names the option the way it was given.
    func test_R8_aRefusalNamesTheOptionAsTheUserWroteIt() {
        let asFlag = MountOptionRefusal(name: "split", value: "99", problem: "must be from 1 to 16", givenAsMountOption: false)
        XCTAssertEqual(asFlag.message, "--split 99: must be from 1 to 16")
        var asOption = asFlag
        asOption.givenAsMountOption = true
        XCTAssertEqual(asOption.message, "-o split=99: must be from 1 to 16")
    }
}
