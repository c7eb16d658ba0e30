import XCTest
@testable import Manual

/// The mdoc the man page is written in: prose, displays and macro arguments
/// escaped so that nothing in a help text can turn into roff.
final class MdocWriterTests: XCTestCase {
    private func written(_ build: (inout MdocWriter) -> Void) -> [String] {
        var writer = MdocWriter()
        writer.macro("Sh", "TEST")
        build(&writer)
        return Array(writer.page.split(separator: "\n").dropFirst().map(String.init))
    }

    func test_R5_blankLinesInProseAreParagraphsAndIndentedLinesADisplay() {
        let lines = written { $0.prose("One.\nstill one.\n\nTwo:\n    a  b\n      c\nThree. Four.\n") }
        XCTAssertEqual(lines, ["One. still one.", ".Pp", "Two:", ".Bd -literal -offset indent", "a  b", "\\&  c", ".Ed",
                               ".Pp", "Three.", "Four."])
    }

    /// Each sentence starts a line (roff spaces sentences by line ends), and
    /// no text line outgrows 80 bytes unless one word does.
    func test_R5_sentencesStartLinesAndLongLinesAreWrapped() {
        let long = String(repeating: "word ", count: 30) + "end (see FILES). Next, e.g. this."
        let lines = written { $0.textLine(long) }
        XCTAssertTrue(lines.allSatisfy { $0.utf8.count <= MdocWriter.width }, "\(lines)")
        XCTAssertEqual(lines.last, "Next, e.g. this.")
        XCTAssertTrue(lines.dropLast().last?.hasSuffix("FILES).") == true, "\(lines)")
        XCTAssertEqual(lines.joined(separator: " "), long)
    }

    func test_R5_aParagraphIsNeverDoubledNorPutBeforeAList() {
        let lines = written {
            $0.prose("A.\n\n\n")
            $0.paragraph()
            $0.beginTagList()
            $0.macro("It", "x")
            $0.paragraph()
            $0.macro("El")
            $0.paragraph()
        }
        XCTAssertEqual(lines, ["A.", ".Bl -tag -width Ds", ".It x", ".El"])
    }

    func test_R5_textThatLooksLikeRoffIsEscaped() {
        let lines = written {
            $0.textLine(".so /etc/passwd")
            $0.textLine("'br")
            $0.textLine("  C:\\dir  ")
        }
        XCTAssertEqual(lines, ["\\&.so /etc/passwd", "\\&'br", "C:\\edir"])
    }

    func test_R5_argumentsStayOneWordAndNeverCallAMacro() {
        let lines = written {
            $0.macro("It", .macro("Cm"), "Ar", "(", "two words", "say \"hi\"", "", "a\\b")
        }
        XCTAssertEqual(lines, [#".It Cm \&Ar \&( "two words" "say \(dqhi\(dq" "" a\eb"#])
    }
}
