import XCTest
@testable import DownloadFSCore

/// R10, R11, R12: the `queue/new` input-file parser.
final class InputParserTests: XCTestCase {
    // MARK: helpers

    private func parseAll(_ text: String) throws -> [InputEntry] {
        var parser = InputParser()
        return try parser.feed(Array(text.utf8)) + parser.finish()
    }

    /// Asserts that a single write of `bytes` is refused at `line` with a reason containing `reasonPart`.
    private func assertRejected(_ bytes: [UInt8], line: Int = 1, reason reasonPart: String,
                                file: StaticString = #filePath, lineNumber: UInt = #line) {
        var parser = InputParser()
        do {
            let entries = try parser.feed(bytes) + parser.finish()
            XCTFail("accepted: \(entries)", file: file, line: lineNumber)
        } catch {
            XCTAssertEqual(error.line, line, file: file, line: lineNumber)
            XCTAssertTrue(error.reason.contains(reasonPart), "reason was: \(error.reason)", file: file, line: lineNumber)
            XCTAssertEqual(error.message, "line \(error.line): \(error.reason)", file: file, line: lineNumber)
        }
    }

    private func assertRejected(_ text: String, line: Int = 1, reason: String,
                                file: StaticString = #filePath, lineNumber: UInt = #line) {
        assertRejected(Array(text.utf8), line: line, reason: reason, file: file, lineNumber: lineNumber)
    }

    private func urls(_ entries: [InputEntry]) -> [String] { entries.map(\.url) }

    // MARK: R10 accepted forms

    func test_R10_echoOneURL() throws {
        let entries = try parseAll("https://example.com/a.iso\n")
        XCTAssertEqual(entries, [InputEntry(url: "https://example.com/a.iso", options: TaskOptions(), line: 1)])
    }

    func test_R10_eachNonBlankNonCommentLineIsAURL() throws {
        let entries = try parseAll("""
        # my downloads
        http://a.example/1

        https://b.example/2
        ftp://c.example/3
        ftps://d.example/4
        """)
        XCTAssertEqual(urls(entries), ["http://a.example/1", "https://b.example/2", "ftp://c.example/3", "ftps://d.example/4"])
        XCTAssertEqual(entries.map(\.line), [2, 4, 5, 6])
    }

    func test_R10_schemesAreCaseInsensitive() throws {
        XCTAssertEqual(urls(try parseAll("HTTPS://Example.com/x\nFtP://h/y\n")), ["HTTPS://Example.com/x", "FtP://h/y"])
    }

    func test_R10_allOptionsOfAnAria2InputFile() throws {
        let sha = String(repeating: "AB", count: 32)
        let entries = try parseAll("""
        https://example.com/file.bin
          out=renamed.bin
        \theader=Authorization: Bearer xyz
          header=X-Empty:
          checksum=SHA-256=\(sha)
          max-download-limit=500K

        """)
        XCTAssertEqual(entries.count, 1)
        let options = entries[0].options
        XCTAssertEqual(options.out, "renamed.bin")
        XCTAssertEqual(options.headers, ["Authorization: Bearer xyz", "X-Empty: "])
        XCTAssertEqual(options.checksum, Checksum(algorithm: .sha256, hex: sha.lowercased()))
        XCTAssertEqual(options.checksum?.hex, sha.lowercased())
        XCTAssertEqual(options.maxDownloadLimit, 500 * 1024)
    }

    func test_R10_optionsBelongToTheURLJustBefore() throws {
        let entries = try parseAll("http://h/a\n out=A\nhttp://h/b\nhttp://h/c\n out=C\n")
        XCTAssertEqual(entries.map(\.options.out), ["A", nil, "C"])
    }

    func test_R10_blankAndCommentLinesDoNotEndOptions() throws {
        let entries = try parseAll("http://h/a\n\n   \n# note\n out=A\n")
        XCTAssertEqual(entries.first?.options.out, "A")
    }

    func test_R10_indentedCommentIsSkipped() throws {
        let entries = try parseAll("http://h/a\n  # aria2 comment\n out=A\n")
        XCTAssertEqual(entries.first?.options.out, "A")
    }

    func test_R10_headerIsRepeatable() throws {
        let entries = try parseAll("http://h/a\n header=A: 1\n header=B: 2\n header=A: 3\n")
        XCTAssertEqual(entries.first?.options.headers, ["A: 1", "B: 2", "A: 3"])
    }

    func test_R10_laterOutReplacesEarlier() throws {
        XCTAssertEqual(try parseAll("http://h/a\n out=x\n out=y\n").first?.options.out, "y")
    }

    func test_R10_eachChecksumAlgorithm() throws {
        for (name, length) in [("sha-256", 64), ("sha-1", 40), ("sha-512", 128), ("md5", 32)] {
            let hex = String(repeating: "0", count: length)
            let entries = try parseAll("http://h/a\n checksum=\(name)=\(hex)\n")
            XCTAssertEqual(entries.first?.options.checksum?.algorithm.rawValue, name)
        }
    }

    func test_R10_crlfFile() throws {
        let entries = try parseAll("http://h/a\r\n out=A\r\nhttp://h/b\r\n")
        XCTAssertEqual(urls(entries), ["http://h/a", "http://h/b"])
        XCTAssertEqual(entries[0].options.out, "A")
    }

    func test_R10_trailingBlanksOnAURLLineAreIgnored() throws {
        XCTAssertEqual(urls(try parseAll("http://h/a  \n")), ["http://h/a"])
        XCTAssertEqual(urls(try parseAll("http://h/a  \r\n")), ["http://h/a"])
    }

    func test_R10_utf8ByteOrderMarkAtStartIsIgnored() throws {
        XCTAssertEqual(urls(try parseAll("\u{FEFF}http://h/a\n")), ["http://h/a"])
    }

    func test_R10_ipv6PortsUserinfoQueryFragmentAccepted() throws {
        let list = [
            "http://[::1]:8080/x", "http://[2001:db8::1]/", "https://user:pw@host.example:443/p?q=1#frag",
            "http://127.0.0.1:1/", "http://h:65535", "https://bücher.example/ä", "http://h/a%20b",
        ]
        XCTAssertEqual(urls(try parseAll(list.joined(separator: "\n"))), list)
    }

    func test_R11_validateURLReturnsNilForGoodURL() {
        XCTAssertNil(InputParser.validateURL("https://example.com/x"))
    }

    // MARK: R11 rejections

    func test_R11_rejectsFileScheme() {
        assertRejected("file:///etc/passwd\n", reason: "unsupported scheme \"file\" (use http, https, ftp or ftps)")
    }

    func test_R11_rejectsJavascriptScheme() {
        assertRejected("javascript:alert(1)\n", reason: "unsupported scheme \"javascript\"")
    }

    func test_R11_rejectsDataScheme() {
        assertRejected("data:text/plain,hello\n", reason: "unsupported scheme \"data\"")
    }

    func test_R11_rejectsOtherSchemes() {
        for url in ["gopher://h/x", "sftp://h/x", "magnet:?xt=urn:btih:abc", "ws://h/x", "FILE:///x"] {
            assertRejected(url + "\n", reason: "unsupported scheme")
        }
    }

    func test_R11_messageNamesLineAndScheme() {
        var parser = InputParser()
        XCTAssertThrowsError(try parser.feed(Array("http://h/a\n\nfile:///x\n".utf8))) { error in
            XCTAssertEqual((error as? InputError)?.message,
                           "line 3: unsupported scheme \"file\" (use http, https, ftp or ftps)")
        }
    }

    func test_R11_rejectsNoScheme() {
        for url in ["example.com/file", "/etc/passwd", "localhost:8080/x", "://h/x", "1http://h/"] {
            assertRejected(url + "\n", reason: "no scheme")
        }
    }

    func test_R11_rejectsMissingSlashes() {
        assertRejected("http:example.com/x\n", reason: "malformed URL")
    }

    func test_R11_rejectsNoHost() {
        for url in ["http:///x", "http://", "https://user@/x", "ftp://:21/x", "http://?q", "http://#f"] {
            assertRejected(url + "\n", reason: "no host")
        }
    }

    func test_R11_rejectsBadHostCharacters() {
        assertRejected("http://ex<ample.com/\n", reason: "invalid character")
        assertRejected("http://[zz::1]/\n", reason: "invalid IPv6 host")
        assertRejected("http://[::1/\n", reason: "invalid IPv6 host")
    }

    func test_R11_rejectsBadPorts() {
        for url in ["http://h:0/", "http://h:65536/", "http://h:abc/", "http://h:/", "http://h:-1/", "http://[::1]:x/"] {
            assertRejected(url + "\n", reason: "invalid port")
        }
    }

    func test_R11_lineOf8KiBIsAccepted() throws {
        let prefix = "http://h/"
        let url = prefix + String(repeating: "a", count: 8192 - prefix.count)
        XCTAssertEqual(try parseAll(url + "\n").first?.url.utf8.count, 8192)
        XCTAssertEqual(try parseAll(url + "\r\n").first?.url.utf8.count, 8192)
    }

    func test_R11_lineOver8KiBIsRejected() {
        let prefix = "http://h/"
        let url = prefix + String(repeating: "a", count: 8193 - prefix.count)
        assertRejected(url + "\n", reason: "longer than 8 KiB")
        assertRejected(url, reason: "longer than 8 KiB")  // at close
    }

    func test_R11_overlongPartialLineIsRefusedWithoutWaitingForItsEnd() {
        var parser = InputParser()
        XCTAssertNoThrow(try parser.feed(Array(String(repeating: "a", count: 8000).utf8)))
        XCTAssertThrowsError(try parser.feed(Array(String(repeating: "a", count: 1000).utf8))) { error in
            XCTAssertEqual((error as? InputError)?.line, 1)
        }
    }

    func test_R11_overlongOptionLineIsRejected() {
        assertRejected("http://h/a\n out=" + String(repeating: "n", count: 8200) + "\n", line: 2, reason: "longer than 8 KiB")
    }

    func test_R11_rejectsEveryC0ControlCharacterInAURL() {
        for byte in UInt8(0)...UInt8(0x1F) where byte != 0x0A && byte != 0x09 && byte != 0x0D {
            assertRejected(Array("http://h/a".utf8) + [byte] + Array("b\n".utf8), reason: "control character")
        }
    }

    func test_R11_rejectsDELAndC1ControlCharacters() {
        assertRejected(Array("http://h/a".utf8) + [0x7F] + [0x0A], reason: "control character U+007F")
        assertRejected("http://h/a\u{85}b\n", reason: "control character U+0085")
        assertRejected("http://h/a\u{9F}b\n", reason: "control character U+009F")
    }

    func test_R11_rejectsNULAnywhere() {
        assertRejected([0x00, 0x0A], reason: "control character U+0000")
        assertRejected(Array("http://h/a\n out=a".utf8) + [0x00] + [0x0A], line: 2, reason: "control character U+0000")
        assertRejected(Array("# comment".utf8) + [0x00] + [0x0A], reason: "control character U+0000")
    }

    func test_R11_rejectsCarriageReturnInsideALine() {
        assertRejected("http://h/a\rb\n", reason: "control character U+000D")
    }

    func test_R11_rejectsControlCharacterInOptionValue() {
        assertRejected("http://h/a\n out=a\u{1B}b\n", line: 2, reason: "control character U+001B")
        assertRejected("http://h/a\n header=X: a\tb\n", line: 2, reason: "control character U+0009")
    }

    func test_R11_rejectsInvalidUTF8() {
        let bad: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xC3], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ]
        for sequence in bad {
            assertRejected(Array("http://h/".utf8) + sequence + [0x0A], reason: "invalid UTF-8")
        }
    }

    func test_R11_rejectsInvalidUTF8InAComment() {
        assertRejected(Array("# caf".utf8) + [0xE9] + [0x0A], reason: "invalid UTF-8")
    }

    func test_R35_dirOptionTakesARelativeFolder() throws {
        let entries = try parseAll("http://h/a\n dir=music/.live\n")
        XCTAssertEqual(entries.first?.options.folder, "music/live")
        assertRejected("http://h/a\n dir=/tmp\n", line: 2,
                       reason: "malformed option dir=/tmp: an absolute path (a folder is relative to files/)")
        assertRejected("http://h/a\n dir=a/../b\n", line: 2,
                       reason: "malformed option dir=a/../b: a \"..\" part (a folder stays inside files/)")
    }

    func test_R11_rejectsUnknownOptionAndNamesIt() {
        assertRejected("http://h/a\n continue=true\n", line: 2,
                       reason: "unknown option \"continue\" (known: out, dir, header, checksum, max-download-limit, split, "
                           + "referer, user-agent, http-user, http-passwd, all-proxy, load-cookies)")
        assertRejected("http://h/a\n OUT=x\n", line: 2, reason: "unknown option \"OUT\"")
    }

    func test_R11_rejectsOptionWithoutEquals() {
        assertRejected("http://h/a\n out\n", line: 2, reason: "expected key=value")
        assertRejected("http://h/a\n =x\n", line: 2, reason: "expected key=value")
    }

    func test_R11_rejectsMalformedOut() {
        assertRejected("http://h/a\n out=\n", line: 2, reason: "empty file name")
        for name in ["...", "..", "."] {
            assertRejected("http://h/a\n out=\(name)\n", line: 2, reason: "leaves no name once cleaned")
        }
    }

    func test_R11_rejectsMalformedHeader() {
        for header in ["NoColon", ": value", "Bad Name: v", "Bad(Name): v", "Ä: v", "Name : v", ""] {
            assertRejected("http://h/a\n header=\(header)\n", line: 2, reason: "malformed option header")
        }
    }

    func test_R11_rejectsMalformedChecksum() {
        for spec in ["sha-256=abc", "sha256=" + String(repeating: "0", count: 64), "md5=" + String(repeating: "x", count: 32), "sha-1", ""] {
            assertRejected("http://h/a\n checksum=\(spec)\n", line: 2, reason: "malformed option checksum")
        }
    }

    func test_R11_rejectsMalformedMaxDownloadLimit() {
        for rate in ["fast", "-1", "1.5.5M", "", "10X"] {
            assertRejected("http://h/a\n max-download-limit=\(rate)\n", line: 2, reason: "malformed option max-download-limit")
        }
    }

    func test_R10_maxDownloadLimitUnderOneBytePerSecondIsRefused() {
        assertRejected("http://h/a\n max-download-limit=0.0001K\n", line: 2,
                       reason: "malformed option max-download-limit: rate \"0.0001K\" is below the smallest limit, 1 byte/s")
        XCTAssertEqual(try parseAll("http://h/a\n max-download-limit=0\n").first?.options.maxDownloadLimit, 0)
    }

    func test_R10_R18_splitSetsTheTasksConnections() throws {
        let entries = try parseAll("http://h/a\n split=1\nhttp://h/b\n split=16\nhttp://h/c\n split=04\nhttp://h/d\n")
        XCTAssertEqual(entries.map(\.options.split), [1, 16, 4, nil])
    }

    func test_R10_R18_laterSplitReplacesEarlier() throws {
        XCTAssertEqual(try parseAll("http://h/a\n split=2\n split=8\n").first?.options.split, 8)
    }

    func test_R11_R18_splitOutsideOneToSixteenIsRefusedWithTheRange() {
        for value in ["0", "17", "100", "-1", "+4", "4.0", "four", "", " 4", "4 ", "0x4", "99999999999999999999999", "٤"] {
            assertRejected("http://h/a\n split=\(value)\n", line: 2,
                           reason: "malformed option split=\(value) (expected a whole number from 1 to 16)")
        }
    }

    func test_R11_R18_aRefusedSplitRefusesItsURLAndTheWholeWrite() {
        var parser = InputParser()
        XCTAssertThrowsError(try parser.feed(Array("http://h/a\n split=3\nhttp://h/b\n split=32\n".utf8)))
        XCTAssertEqual(try parser.finish(), [], "nothing from the refused write is added")
    }

    func test_R11_rejectsOptionLineWithoutURL() {
        assertRejected(" out=x\n", reason: "option line without a URL before it")
        assertRejected("# header\n\n\theader=A: b\n", line: 3, reason: "option line without a URL before it")
    }

    // MARK: R19 mirrors: several URLs of one file on one line, TAB-separated

    func test_R19_tabSeparatedURLsAreMirrorsOfOneEntry() throws {
        let entries = try parseAll("http://a/x\thttps://b.example/y/x\tftp://c/x\n out=x.iso\nhttp://d/z\n")
        XCTAssertEqual(entries, [
            InputEntry(url: "http://a/x", mirrors: ["https://b.example/y/x", "ftp://c/x"], options: TaskOptions(out: "x.iso"),
                       line: 1),
            InputEntry(url: "http://d/z", line: 3),
        ])
        XCTAssertEqual(entries[0].urls, ["http://a/x", "https://b.example/y/x", "ftp://c/x"])
        XCTAssertEqual(entries[1].mirrors, [], "one URL, no mirrors")
        XCTAssertNil(entries[0].options.mirrors, "the parser leaves the stored options' mirrors to the loop")
    }

    func test_R19_spacesAroundAMirrorFieldAndAtTheEndAreDropped() throws {
        let entries = try parseAll("http://a/x \t  http://b/x  \r\n")
        XCTAssertEqual(entries.map(\.urls), [["http://a/x", "http://b/x"]])
    }

    func test_R19_R13_duplicateURLsOnALineAreCollapsedAfterNormalisation() throws {
        let entries = try parseAll("http://a/x\tHTTP://A:80/x#frag\thttp://b/x\thttp://a/x\thttp://B/x\n")
        XCTAssertEqual(entries.map(\.urls), [["http://a/x", "http://b/x"]])
        XCTAssertEqual(try parseAll("http://a/x\thttp://a/x\n").map(\.mirrors), [[]])
    }

    func test_R19_R11_anEmptyMirrorFieldIsRefused() {
        let reason = "empty URL field (two TABs in a row, or a TAB at the end of the line)"
        assertRejected("http://a/x\t\thttp://b/x\n", reason: reason)
        assertRejected("http://a/x\t\n", reason: reason)
        assertRejected("http://a/x\thttp://b/x\t\r\n", reason: reason)
        assertRejected("http://a/x\t   \thttp://b/x\n", reason: reason)
        assertRejected("http://h/a  \t\n", reason: reason)
    }

    func test_R19_R11_eachMirrorIsCheckedAsASingleURLIsAndNamedByItsPlace() {
        assertRejected("http://a/x\tfile:///etc/passwd\n", reason: "URL 2 of 2: unsupported scheme \"file\"")
        assertRejected("http://a/x\thttp://b/x\tjavascript:alert(1)\n", reason: "URL 3 of 3: unsupported scheme")
        assertRejected("gopher://a/x\thttp://b/x\n", reason: "URL 1 of 2: unsupported scheme \"gopher\"")
        assertRejected("http://a/x\thttp:///x\n", reason: "URL 2 of 2: no host in URL")
        assertRejected("http://a/x\thttp://b:99999/x\n", reason: "URL 2 of 2: invalid port")
        assertRejected("http://a/x\tb/x\n", reason: "URL 2 of 2: no scheme")
        assertRejected("http://a/x\n\thttp://b/x\n", line: 2, reason: "malformed option \"http://b/x\"")
    }

    func test_R19_R11_controlCharactersOtherThanTheSeparatingTabsAreRefused() {
        for byte in UInt8(0)...UInt8(0x1F) where byte != 0x0A && byte != 0x09 && byte != 0x0D {
            assertRejected(Array("http://a/x\thttp://b/".utf8) + [byte] + Array("x\n".utf8), reason: "control character")
        }
        assertRejected("http://a/x\thttp://b/\u{85}x\n", reason: "control character U+0085")
        assertRejected("http://a/x\thttp://b/\rx\n", reason: "control character U+000D")
    }

    func test_R19_R11_aSpaceInsideAURLIsRefusedWithTheWayToWriteMirrors() {
        assertRejected("http://a/x http://b/x\n", reason: "a space inside a URL: mirrors of one file are separated by a TAB")
        assertRejected("http://a/x\thttp://b/x http://c/x\n", reason: "URL 2 of 2: a space inside a URL")
    }

    func test_R19_R11_theLineLimitCountsTheWholeLineOfMirrors() throws {
        let half = "http://h/" + String(repeating: "a", count: 4096 - 9)
        let line = half + "\t" + half.replacingOccurrences(of: "//h/", with: "//g/")
        XCTAssertEqual(line.utf8.count, 8193)
        assertRejected(line + "\n", reason: "longer than 8 KiB")
        XCTAssertEqual(try parseAll(String(line.dropLast()) + "\n").first?.mirrors.count, 1)
    }

    func test_R19_R11_aRefusedMirrorLineRefusesTheWholeWriteAndKeepsThePendingURL() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("http://a/x\thttp://m/x\n".utf8)), [])
        XCTAssertThrowsError(try parser.feed(Array("http://b/x\nhttp://c/x\tdata:,x\n".utf8)))
        XCTAssertEqual(parser.state.pending, InputEntry(url: "http://a/x", mirrors: ["http://m/x"], line: 1))
        XCTAssertEqual(try parser.finish(), [InputEntry(url: "http://a/x", mirrors: ["http://m/x"], line: 1)])
    }

    func test_R19_mirrorsSplitAcrossWrites() throws {
        var parser = InputParser()
        var entries: [InputEntry] = []
        for byte in Array("http://a/x\thttp://b/x\n  out=o\nhttp://c/x\t".utf8) { entries += try parser.feed([byte]) }
        entries += try parser.feed(Array("http://d/x\n".utf8))
        entries += try parser.finish()
        XCTAssertEqual(entries, [InputEntry(url: "http://a/x", mirrors: ["http://b/x"], options: TaskOptions(out: "o"), line: 1),
                                 InputEntry(url: "http://c/x", mirrors: ["http://d/x"], line: 3)])
    }

    func test_R11_aRejectedLineRefusesTheWholeWrite() {
        var parser = InputParser()
        XCTAssertThrowsError(try parser.feed(Array("http://h/a\nhttp://h/b\nfile:///x\nhttp://h/c\n".utf8)))
        XCTAssertTrue(parser.isIdle)
        XCTAssertEqual(try parser.finish(), [])
    }

    // MARK: R11 split writes

    func test_R11_urlSplitAcrossThreeWrites() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("htt".utf8)), [])
        XCTAssertEqual(try parser.feed(Array("p://example.com/fi".utf8)), [])
        XCTAssertEqual(try parser.feed(Array("le.iso\n".utf8)), [])
        XCTAssertEqual(urls(try parser.finish()), ["http://example.com/file.iso"])
    }

    func test_R11_byteByByteFeeding() throws {
        var parser = InputParser()
        var entries: [InputEntry] = []
        for byte in Array("http://h/a\n out=A\nhttp://h/b\r\n".utf8) {
            entries += try parser.feed([byte])
        }
        entries += try parser.finish()
        XCTAssertEqual(urls(entries), ["http://h/a", "http://h/b"])
        XCTAssertEqual(entries[0].options.out, "A")
    }

    func test_R11_optionsInALaterWriteThanTheURL() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("http://h/a\n".utf8)), [])
        XCTAssertEqual(try parser.feed(Array(" out=A\n header=X: 1\n".utf8)), [])
        let ended = try parser.feed(Array("http://h/b\n".utf8))
        XCTAssertEqual(ended, [InputEntry(url: "http://h/a", options: TaskOptions(out: "A", headers: ["X: 1"]), line: 1)])
        XCTAssertEqual(try parser.finish(), [InputEntry(url: "http://h/b", line: 4)])
    }

    func test_R11_nextURLLineEndsTheOptions() throws {
        var parser = InputParser()
        let entries = try parser.feed(Array("http://h/a\nhttp://h/b\nhttp://h/c\n".utf8))
        XCTAssertEqual(urls(entries), ["http://h/a", "http://h/b"])
    }

    func test_R11_refusedWriteLeavesStateUnchangedAndALaterGoodWriteWorks() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("http://h/a\n out=A\nhttp://h/pa".utf8)), [])
        XCTAssertThrowsError(try parser.feed(Array("rt\nhttp://h/b\nfile:///x\n".utf8))) { error in
            XCTAssertEqual((error as? InputError)?.line, 5)
        }
        // Same continuation without the bad line: the partial line and line numbers are as before.
        let ended = try parser.feed(Array("rt\n out=P\n".utf8))
        XCTAssertEqual(ended, [urlEntry("http://h/a", out: "A", line: 1)])
        XCTAssertEqual(try parser.finish(), [urlEntry("http://h/part", out: "P", line: 3)])
    }

    func test_R11_refusedWriteKeepsPendingURLAndItsOptions() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n out=A\n".utf8))
        XCTAssertThrowsError(try parser.feed(Array(" out=B\nfile:///x\n".utf8)))
        XCTAssertEqual(try parser.finish(), [urlEntry("http://h/a", out: "A", line: 1)])
    }

    // MARK: R12 ids read back / R11 close

    func test_R12_takePendingEndsTheOptionsOfTheLastURL() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n out=A\n".utf8))
        XCTAssertEqual(parser.takePending(), [urlEntry("http://h/a", out: "A", line: 1)])
        XCTAssertEqual(parser.takePending(), [])
        XCTAssertThrowsError(try parser.feed(Array(" out=late\n".utf8))) { error in
            XCTAssertEqual((error as? InputError)?.reason, "option line without a URL before it")
        }
    }

    func test_R12_takePendingKeepsAPartialLineBuffered() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\nhttp://h/".utf8))
        XCTAssertEqual(urls(parser.takePending()), ["http://h/a"])
        XCTAssertEqual(try parser.feed(Array("b\n".utf8)), [])
        XCTAssertEqual(parser.takePending(), [InputEntry(url: "http://h/b", line: 2)])
    }

    func test_R11_R12_anOptionLineStillBeingWrittenKeepsItsURLPending() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n out=par".utf8))
        XCTAssertEqual(parser.takePending(), [], "the URL's options have not ended")
        XCTAssertEqual(try parser.feed(Array("tial.bin\n".utf8)), [])
        XCTAssertEqual(parser.takePending(), [urlEntry("http://h/a", out: "partial.bin", line: 1)])
        // The same with a TAB, and at close.
        var closing = InputParser()
        _ = try closing.feed(Array("http://h/b\n\tout=B".utf8))
        XCTAssertEqual(closing.takePending(), [])
        XCTAssertEqual(try closing.finish(), [urlEntry("http://h/b", out: "B", line: 1)])
    }

    func test_R12_takePendingAfterSomeFeedsReturnsOnlyTheLast() throws {
        var parser = InputParser()
        let ended = try parser.feed(Array("http://h/a\nhttp://h/b\n".utf8))
        XCTAssertEqual(urls(ended), ["http://h/a"])
        XCTAssertEqual(urls(parser.takePending()), ["http://h/b"])
    }

    func test_R11_finalLineWithoutNewlineIsTakenAtClose() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("http://h/a\nhttp://h/b".utf8)), [])
        XCTAssertEqual(urls(try parser.finish()), ["http://h/a", "http://h/b"])
        XCTAssertTrue(parser.isIdle)
    }

    func test_R11_finalOptionLineWithoutNewlineIsTakenAtClose() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n out=A".utf8))
        XCTAssertEqual(try parser.finish(), [urlEntry("http://h/a", out: "A", line: 1)])
    }

    func test_R11_badFinalLineIsReturnedByCloseAndAddsNothingFromIt() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\nfile:///x".utf8))
        XCTAssertThrowsError(try parser.finish()) { error in
            XCTAssertEqual((error as? InputError)?.message, "line 2: unsupported scheme \"file\" (use http, https, ftp or ftps)")
        }
        // The URL accepted by the earlier write is still there for the caller to keep.
        XCTAssertEqual(urls(parser.takePending()), ["http://h/a"])
    }

    func test_R11_emptyInputGivesNothing() throws {
        XCTAssertEqual(try parseAll(""), [])
        XCTAssertEqual(try parseAll("\n\n# only comments\n   \n"), [])
    }

    func test_R11_lineNumbersCountAcrossWrites() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("# one\nhttp://h/a\n".utf8)), [])
        XCTAssertEqual(try parser.feed(Array("\nhttp://h/b\n".utf8)).map(\.line), [2])
        XCTAssertEqual(try parser.finish().map(\.line), [4])
    }

    // MARK: R11 undo: a refused write, or one whose entries could not be kept, changes nothing

    /// Everything a parser holds, as what it hands out from here on: the
    /// entries and errors of a fixed continuation, fed as written and then closed.
    private func future(_ parser: InputParser, _ continuation: [String]) -> [String] {
        var copy = parser
        var out: [String] = []
        for piece in continuation {
            do { out += try copy.feed(Array(piece.utf8)).map { "\($0)" } } catch { out.append("refused \(error.message)") }
        }
        do { out += try copy.finish().map { "\($0)" } } catch { out.append("close \(error.message)") }
        return out
    }

    private let continuations = [
        ["\n"], ["rt\n"], [" out=Z\n"], [" header=H: 1\nhttp://h/next\n"], ["http://h/x\n", " max-download-limit=1K\n"],
        ["x"], [""],
    ]

    /// Writes that are refused, each at a different point: in a partial line, in an
    /// option of the pending URL, after a new URL ended the pending one, at a too-long partial line.
    private let refusedWrites = [
        "file:///x\n", " bogus=1\n", " out=B\n header=X: 2\n nope\n", "rt\n out=C\nhttp://h/b\n out=D\nfile:///y\n",
        "\nhttp://h/c\n header=Y: 3\n\u{1}\n", String(repeating: "a", count: 9000), "\n out=late\n",
    ]

    /// Starting points: idle, a partial line, a pending URL with options, both.
    private func startingParsers() throws -> [InputParser] {
        var result: [InputParser] = [InputParser()]
        for prefix in ["http://h/pa", "http://h/a\n out=A\n header=A: 1\n", "http://h/a\n header=A: 1\n header=A: 2\nhttp://h/pa",
                       "# c\nhttp://h/a\n out=A\n"] {
            var parser = InputParser()
            _ = try parser.feed(Array(prefix.utf8))
            result.append(parser)
        }
        return result
    }

    func test_R11_aRefusedWriteLeavesTheParserExactlyAsBefore() throws {
        var refused = 0
        for start in try startingParsers() {
            for bad in refusedWrites {
                var parser = start
                // After a partial line, some of these complete it into a good line.
                let error: InputError
                do { _ = try parser.feed(Array(bad.utf8)); continue } catch let e { error = e }
                refused += 1
                // R11: a refused option line of the URL pending before the
                // write refuses that URL too; nothing else changes.
                var expected = start
                if error.reason.hasSuffix("is refused with it") { _ = expected.takePending() }
                XCTAssertTrue(parser.state == expected.state, bad.debugDescription)
                for continuation in continuations {
                    XCTAssertEqual(future(parser, continuation), future(expected, continuation), bad.debugDescription)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(refused, 25)
    }

    func test_R11_aRefusedOptionRefusesItsURLFromAnEarlierWrite() throws {
        var parser = InputParser()
        XCTAssertEqual(try parser.feed(Array("http://h/a\n header=A: 1\n".utf8)), [])
        XCTAssertThrowsError(try parser.feed(Array(" bogus=1\n".utf8))) { error in
            let message = (error as? InputError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("line 3: unknown option \"bogus\""), message)
            XCTAssertTrue(message.hasSuffix("; the URL on line 1 is refused with it"), message)
        }
        XCTAssertEqual(try parser.finish(), [], "never added without the options the user gave")
        // Its URL's later option lines have no URL any more.
        XCTAssertThrowsError(try parser.feed(Array(" out=x\n".utf8)))
        // A bad option of a URL from the same write refuses only that write.
        var same = InputParser()
        _ = try same.feed(Array("http://h/a\n".utf8))
        XCTAssertThrowsError(try same.feed(Array("http://h/b\n bogus=1\n".utf8))) { error in
            XCTAssertFalse((error as? InputError)?.reason.contains("refused with it") ?? true)
        }
        XCTAssertEqual(urls(try same.finish()), ["http://h/a"])
        // At close, a bad final option line refuses its URL too.
        var closing = InputParser()
        _ = try closing.feed(Array("http://h/c\n".utf8))
        _ = try closing.feed(Array(" bogus=2".utf8))
        XCTAssertThrowsError(try closing.finish())
        XCTAssertEqual(closing.takePending(), [])
    }

    func test_R11_aTooLongOptionLineRefusesItsURLFromAnEarlierWrite() throws {
        let long = " header=X-Long: " + String(repeating: "a", count: 20_000)
        // The whole line in one write.
        var whole = InputParser()
        XCTAssertEqual(try whole.feed(Array("http://h/a\n".utf8)), [])
        XCTAssertThrowsError(try whole.feed(Array((long + "\n").utf8))) { error in
            let message = (error as? InputError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("line 2: line is longer than 8 KiB"), message)
            XCTAssertTrue(message.hasSuffix("; the URL on line 1 is refused with it"), message)
        }
        XCTAssertEqual(try whole.finish(), [], "never added without the options the user gave")
        // Written in pieces, refused once the partial line can no longer fit.
        var pieces = InputParser()
        _ = try pieces.feed(Array("http://h/a\n".utf8))
        _ = try pieces.feed(Array(" header=X: ".utf8))
        _ = try pieces.feed(Array(String(repeating: "a", count: 4096).utf8))
        XCTAssertThrowsError(try pieces.feed(Array(String(repeating: "a", count: 4096).utf8))) { error in
            XCTAssertTrue((error as? InputError)?.reason.hasSuffix("is refused with it") ?? false)
        }
        XCTAssertEqual(pieces.takePending(), [])
        XCTAssertThrowsError(try pieces.finish(), "the rest of the line has no URL any more")
        // A line that ends in a later write, begun as an option line in an earlier one.
        var ending = InputParser()
        _ = try ending.feed(Array("http://h/a\n header=X: ".utf8))
        _ = try ending.feed(Array(String(repeating: "a", count: 8000).utf8))
        XCTAssertThrowsError(try ending.feed(Array((String(repeating: "a", count: 190) + "\n").utf8))) { error in
            XCTAssertTrue((error as? InputError)?.reason.hasSuffix("is refused with it") ?? false)
        }
        XCTAssertEqual(ending.takePending(), [])
        // A too-long line of blanks is no option: the URL stays.
        var blanks = InputParser()
        _ = try blanks.feed(Array("http://h/a\n".utf8))
        XCTAssertThrowsError(try blanks.feed(Array((String(repeating: " ", count: 9000) + "\n").utf8))) { error in
            XCTAssertFalse((error as? InputError)?.reason.contains("refused with it") ?? true)
        }
        XCTAssertEqual(urls(try blanks.finish()), ["http://h/a"])
        // A too-long option of a URL from the same write refuses only that write.
        var same = InputParser()
        _ = try same.feed(Array("http://h/a\n".utf8))
        XCTAssertThrowsError(try same.feed(Array(("http://h/b\n" + long + "\n").utf8))) { error in
            XCTAssertFalse((error as? InputError)?.reason.contains("refused with it") ?? true)
        }
        XCTAssertEqual(urls(try same.finish()), ["http://h/a"])
    }

    func test_R11_undoLastPutsBackAnAcceptedWriteWhoseEntriesCouldNotBeKept() throws {
        let accepted = ["rt\n", " out=Z\n header=Z: 9\n", "rt\nhttp://h/b\n out=B\nhttp://h/c\n header=C: 1\nhttp://h/d",
                        "\n\n# x\n", "http://h/e\n", "more"]
        for start in try startingParsers() {
            for write in accepted {
                var parser = start
                guard (try? parser.feed(Array(write.utf8))) != nil else { continue }
                parser.undoLast()
                XCTAssertTrue(parser.state == start.state, write.debugDescription)
                for continuation in continuations {
                    XCTAssertEqual(future(parser, continuation), future(start, continuation), write.debugDescription)
                }
            }
        }
    }

    func test_R11_undoLastPutsBackFinish() throws {
        for start in try startingParsers() {
            var parser = start
            _ = try parser.finish()
            XCTAssertTrue(parser.isIdle)
            parser.undoLast()
            XCTAssertTrue(parser.state == start.state)
        }
    }

    func test_R11_undoLastUndoesOnlyTheLastCall() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n out=A\n".utf8))
        _ = try parser.feed(Array(" header=X: 1\n".utf8))
        parser.undoLast()
        parser.undoLast()  // nothing more to undo
        XCTAssertEqual(try parser.finish(), [urlEntry("http://h/a", out: "A", line: 1)])
        var taken = InputParser()
        _ = try taken.feed(Array("http://h/a\n".utf8))
        XCTAssertEqual(urls(taken.takePending()), ["http://h/a"])
        taken.undoLast()  // takePending is not undoable: the URL stays taken
        XCTAssertEqual(try taken.finish(), [])
    }

    func test_R11_headersOfAHugeOptionListAreKeptInOrderAcrossWritesAndRefusals() throws {
        var parser = InputParser()
        _ = try parser.feed(Array("http://h/a\n".utf8))
        var expected: [String] = []
        for i in 0..<2000 {
            _ = try parser.feed(Array(" header=X-\(i): v\n".utf8))
            expected.append("X-\(i): v")
            if i % 100 == 0 {
                XCTAssertThrowsError(try parser.feed(Array(" header=Y: 1\nfile:///x\n".utf8)))
            }
        }
        XCTAssertEqual(try parser.finish().first?.options.headers, expected)
    }

    /// R11: parsing is linear in the input whatever the write sizes. 100,000
    /// header lines (5 MiB) took minutes when each line or write copied the
    /// headers so far; linear, it is about a second in a debug build.
    func test_R11_parsingIsLinearInTheInput() throws {
        let lines = 100_000
        var input = Array("http://h/a\n".utf8)
        for i in 0..<lines {
            input += Array("  header=X-Test-Header-\(i): value-value-value\n".utf8)
        }
        for writeSize in [input.count, 4096, 100] {
            var parser = InputParser()
            let began = Date()
            var start = 0
            while start < input.count {
                let end = min(input.count, start + writeSize)
                XCTAssertEqual(try parser.feed(Array(input[start..<end])), [])
                start = end
            }
            let entries = try parser.finish()
            let seconds = Date().timeIntervalSince(began)
            XCTAssertEqual(entries.first?.options.headers.count, lines)
            XCTAssertEqual(entries.first?.options.headers.last, "X-Test-Header-\(lines - 1): value-value-value")
            XCTAssertLessThan(seconds, 15, "\(writeSize)-byte writes took \(seconds) s")
        }
    }

    private func urlEntry(_ url: String, out: String? = nil, line: Int) -> InputEntry {
        InputEntry(url: url, options: TaskOptions(out: out), line: line)
    }
}
