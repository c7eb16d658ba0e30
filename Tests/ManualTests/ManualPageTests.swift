import DownloadFSCore
import Foundation
import XCTest
@testable import Manual

/// R5: the man page is made from the command definitions and the core's
/// lists, and is a page man(1) reads without a warning.
final class ManualPageTests: XCTestCase {
    /// A tree in argument-parser's `--experimental-dump-help` form, with a
    /// hidden option, argument-parser's own `help` command, and its
    /// `--help` and `--version` on every command.
    private static let toolInfo = #"""
        {"serializationVersion": 0, "command": {
          "commandName": "downloadfs", "abstract": "A download manager whose whole interface is a filesystem.",
          "discussion": "Mount it.\n\nExample:\n  downloadfs mount ~/dl\n  .hidden \\ file",
          "arguments": [
            {"kind": "flag", "shouldDisplay": true, "isOptional": true, "isRepeating": false, "parsingStrategy": "default",
             "names": [{"kind": "long", "name": "version"}], "preferredName": {"kind": "long", "name": "version"},
             "abstract": "Show the version."},
            {"kind": "flag", "shouldDisplay": true, "isOptional": true, "isRepeating": false, "parsingStrategy": "default",
             "names": [{"kind": "short", "name": "h"}, {"kind": "long", "name": "help"}],
             "preferredName": {"kind": "long", "name": "help"}, "abstract": "Show help information."}],
          "subcommands": [
            {"commandName": "mount", "superCommands": ["downloadfs"], "abstract": "Mount downloadfs.",
             "discussion": "Returns once ready.",
             "arguments": [
               {"kind": "positional", "shouldDisplay": true, "isOptional": false, "isRepeating": false,
                "parsingStrategy": "default", "names": [{"kind": "long", "name": "mountpoint"}],
                "preferredName": {"kind": "long", "name": "mountpoint"}, "valueName": "mountpoint",
                "abstract": "An empty directory."},
               {"kind": "option", "shouldDisplay": true, "isOptional": true, "isRepeating": false,
                "parsingStrategy": "default", "names": [{"kind": "long", "name": "max-active"}],
                "preferredName": {"kind": "long", "name": "max-active"}, "valueName": "n", "defaultValue": "3",
                "abstract": "How many tasks download at once."},
               {"kind": "option", "shouldDisplay": true, "isOptional": true, "isRepeating": true,
                "parsingStrategy": "default", "names": [{"kind": "short", "name": "o"}],
                "preferredName": {"kind": "short", "name": "o"}, "valueName": "opt", "abstract": "A FUSE option."},
               {"kind": "option", "shouldDisplay": false, "isOptional": true, "isRepeating": true,
                "parsingStrategy": "default", "names": [{"kind": "long", "name": "given-as-mount-option"}],
                "preferredName": {"kind": "long", "name": "given-as-mount-option"}, "valueName": "secret-word"},
               {"kind": "flag", "shouldDisplay": true, "isOptional": true, "isRepeating": false, "parsingStrategy": "default",
                "names": [{"kind": "long", "name": "version"}], "preferredName": {"kind": "long", "name": "version"},
                "abstract": "Show the version."},
               {"kind": "flag", "shouldDisplay": true, "isOptional": true, "isRepeating": false, "parsingStrategy": "default",
                "names": [{"kind": "short", "name": "h"}, {"kind": "long", "name": "help"}],
                "preferredName": {"kind": "long", "name": "help"}, "abstract": "Show help information."}]},
            {"commandName": "help", "superCommands": ["downloadfs"],
             "abstract": "Show subcommand help information."}]}}
        """#

    private func page() throws -> String {
        let root = try ManualCommand.root(ofToolInfo: Data(Self.toolInfo.utf8))
        return ManualPage(root: root, date: Date(timeIntervalSince1970: 1_795_651_200),
                          failureStatus: 1, usageStatus: 64).rendered()
    }

    private func lines() throws -> [String] { try page().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    func test_R5_everyWordTheCodeDefinesHasItsSentence() {
        for key in StatusRenderer.keys { XCTAssertNotNil(ManualGlossary.statusKeys[key], "status key \(key)") }
        for key in InputOptionLine.knownKeys {
            XCTAssertNotNil(ManualGlossary.inputOptions[key], "input option \(key)")
            XCTAssertNotNil(ManualGlossary.inputOptionValues[key], "input option \(key)'s value")
        }
        for form in ControlCommand.taskForms { XCTAssertNotNil(ManualGlossary.taskCommands[form], "task ctl \(form)") }
        for form in ControlCommand.globalForms { XCTAssertNotNil(ManualGlossary.globalCommands[form], "mount ctl \(form)") }
    }

    func test_R5_thePageListsEveryStatusKeyInputOptionAndCtlCommandTheCodeHas() throws {
        let lines = try lines()
        for key in StatusRenderer.keys { XCTAssertTrue(lines.contains(".It Cm \(key) :"), key) }
        for key in InputOptionLine.knownKeys {
            XCTAssertTrue(lines.contains { $0.hasPrefix(".It Cm \(key) Ns = Ns Ar ") }, key)
        }
        for form in ControlCommand.taskForms + ControlCommand.globalForms {
            let words = form.split(separator: " ")
            let item = ".It Cm \(words[0])" + words.dropFirst().map { " Ar \($0)" }.joined()
            XCTAssertTrue(lines.contains(item), form)
        }
        for entry in MountEntry.layout { XCTAssertTrue(lines.contains(".It Pa \(entry.path)"), entry.path) }
        for name in [TaskDirectoryNames.statusAttribute, TaskDirectoryNames.mirrorsAttribute,
                     TaskDirectoryNames.rangesAttribute, TaskDirectoryNames.reportAttribute,
                     TaskDirectoryNames.placeAttribute] {
            XCTAssertTrue(lines.contains(".It Va \(name)"), name)
        }
    }

    func test_R5_thePageShowsTheCommandTreeButNotWhatIsHidden() throws {
        let page = try page()
        let lines = try lines()
        XCTAssertTrue(page.hasPrefix(".Dd \"November 26, 2026\"\n.Dt DOWNLOADFS 1\n.Os \"downloadfs \(ProductVersion.current)\"\n"), page)
        XCTAssertTrue(lines.contains(".Nd \"a download manager whose whole interface is a filesystem\""))
        XCTAssertTrue(lines.contains(".Ss \"downloadfs mount\""))
        XCTAssertTrue(lines.contains(".It Fl -max-active Ar n"))
        XCTAssertTrue(lines.contains("The default is 3."))
        XCTAssertTrue(lines.contains(".It Fl o Ar opt ..."))
        XCTAssertTrue(lines.contains(".Op Fl o Ar opt ..."), "the synopsis")
        XCTAssertTrue(lines.contains(".Ar mountpoint"), "a required argument outside brackets")
        XCTAssertFalse(page.contains("given-as-mount-option"))
        XCTAssertFalse(page.contains("subcommand help"))
        XCTAssertEqual(lines.filter { $0 == ".It Fl -help , Fl h" }.count, 1, "listed once, under the root")
        XCTAssertEqual(lines.filter { $0 == ".It Fl -version" }.count, 1)
        XCTAssertEqual(lines.filter { $0.contains("Fl -version") }.count, 2, "in the synopsis once, and listed once")
        XCTAssertTrue(lines.contains(".It \(TaskEnding.someFailedStatus)"))
        XCTAssertTrue(lines.contains(".It 64"))
    }

    /// What man(1) warned about in argument-parser's page: empty lines. Nor
    /// may a text line start with a blank or a control character, nor a
    /// backslash stand for anything but an escape.
    func test_R5_noEmptyLineAndEveryLineIsSafeRoff() throws {
        let lines = try lines()
        XCTAssertFalse(lines.isEmpty)
        for (number, line) in lines.enumerated() {
            XCTAssertFalse(line.isEmpty, "line \(number + 1) is empty")
            XCTAssertFalse(line.hasPrefix("'") || line.hasPrefix(" ") || line.hasPrefix("\t"), line)
            XCTAssertFalse(line.hasSuffix(" "), "trailing blank: \(line)")
            var rest = Substring(line)
            while let slash = rest.firstIndex(of: "\\") {
                let after = rest[rest.index(after: slash)...]
                XCTAssertTrue(["e", "&", "("].contains { after.hasPrefix($0) }, "a bare backslash in: \(line)")
                rest = after.dropFirst()
            }
        }
        XCTAssertFalse(lines.indices.dropFirst().contains { lines[$0] == ".Pp" && lines[$0 - 1] == ".Pp" })
        XCTAssertTrue(lines.contains("\\&.hidden \\e file"), "a line starting with a dot, and a backslash")
    }
}
