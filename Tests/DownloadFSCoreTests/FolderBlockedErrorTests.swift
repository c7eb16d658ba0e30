import XCTest
@testable import DownloadFSCore

/// R35: a finished file whose folder cannot be made fails its task with what to do.
final class FolderBlockedErrorTests: XCTestCase {
    func testTheSentenceNamesTheFolderWhyAndWhatToDo() {
        XCTAssertEqual(FolderBlockedError(folder: "isos/debian", cause: .fileInTheWay).message,
                       "cannot make the folder isos/debian in files/: a file has that name; move it away (mv) and resume the task")
        XCTAssertEqual(FolderBlockedError(folder: "a", cause: .system("No space left on device")).message,
                       "cannot make the folder a in files/: No space left on device; move it away (mv) and resume the task")
    }
}
