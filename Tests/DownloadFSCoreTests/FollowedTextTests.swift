import DownloadFSCore
import XCTest

final class FollowedTextTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func string(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }

    func test_aReadFromTheStartTakesTheTextAsItIsNow() {
        var text = FollowedText(bytes("downloaded: 10\n"), grows: false)
        var rendered = 0
        XCTAssertTrue(string(text.read(offset: 0, size: 100) { rendered += 1; return self.bytes("downloaded: 15\n") }) == "downloaded: 10\n")
        XCTAssertEqual(rendered, 0, "the first read is served from the text the open rendered")
        XCTAssertTrue(string(text.read(offset: 0, size: 100) { self.bytes("downloaded: 20\n") }) == "downloaded: 20\n")
    }

    func test_readsInBetweenSeeTheTextTheyStartedOn() {
        var text = FollowedText(bytes("abc\ndef\n"), grows: true)
        XCTAssertTrue(string(text.read(offset: 0, size: 3) { self.bytes("abc\ndef\n") }) == "abc")
        XCTAssertTrue(string(text.read(offset: 3, size: 3) { self.bytes("xyz\nuvw\n") }) == "\nde")
    }

    func test_aReadAtTheEndGoesOnWithWhatALogAdded() {
        var text = FollowedText(bytes("1 a\n2 b\n"), grows: true)
        XCTAssertTrue(text.read(offset: 8, size: 100) { self.bytes("1 a\n2 b\n") }.isEmpty)
        XCTAssertTrue(string(text.read(offset: 8, size: 100) { self.bytes("1 a\n2 b\n3 c\n") }) == "3 c\n")
        XCTAssertTrue(string(text.read(offset: 12, size: 100) { self.bytes("1 a\n2 b\n3 c\n4 d\n") }) == "4 d\n")
    }

    func test_aLogThatDroppedItsOldestLinesGoesOnAfterTheLastLineRead() {
        var text = FollowedText(bytes("1 a\n2 b\n3 c\n"), grows: true)
        XCTAssertTrue(string(text.read(offset: 12, size: 100) { self.bytes("3 c\n4 d\n5 e\n") }) == "4 d\n5 e\n")
        XCTAssertTrue(text.bytes.count == 20)
    }

    func test_aRewrittenTextHasNothingToGoOnWith() {
        var text = FollowedText(bytes("state: downloading\ndownloaded: 1\n"), grows: true)
        XCTAssertTrue(text.read(offset: 33, size: 100) { self.bytes("state: completed\ndownloaded: 9\n") }.isEmpty)
        var status = FollowedText(bytes("state: downloading\n"), grows: false)
        var rendered = 0
        XCTAssertTrue(status.read(offset: 19, size: 100) { rendered += 1; return self.bytes("state: completed\n") }.isEmpty)
        XCTAssertEqual(rendered, 0, "a status's end renders nothing: a cat renders it once")
    }

    func test_aTextThatIsGoneLeavesTheReaderWhatItHad() {
        var text = FollowedText(bytes("1 a\n"), grows: true)
        XCTAssertTrue(string(text.read(offset: 0, size: 100) { nil }) == "1 a\n")
        XCTAssertTrue(text.read(offset: 4, size: 100) { nil }.isEmpty)
    }

    func test_aFollowerKeepsABoundedWindow() {
        var log = ""
        var text = FollowedText(bytes(log), grows: true, kept: 64)
        var offset = 0
        for line in 0..<100 {
            log += "line \(line)\n"
            let now = bytes(log)
            let read = text.read(offset: offset, size: 4096) { now }
            XCTAssertTrue(string(read) == "line \(line)\n")
            offset += read.count
        }
        XCTAssertTrue(text.bytes.count <= 128)
        XCTAssertTrue(text.start + text.bytes.count == offset)
        // A read behind the window gets the text as it is now at that offset.
        XCTAssertTrue(string(text.read(offset: 5, size: 2) { self.bytes(log) }) == "0\n")
    }

    func test_theLastLineIsFoundOnlyWhereALineStarts() {
        XCTAssertTrue(FollowedText.end(ofLastLineOf: Array("x\nb c\n".utf8), in: Array("ab c\nb c\nz\n".utf8)) == 9)
        XCTAssertTrue(FollowedText.end(ofLastLineOf: Array("no newline".utf8), in: Array("no newline\n".utf8)) == nil)
    }
}
