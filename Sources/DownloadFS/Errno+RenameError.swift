import DownloadFSCore
import FuseKit
import Glibc

extension Errno {
    /// What `mv` or `mkdir` in files/ returns when the task set refused it (R35, R40).
    init(_ refusal: RenameError) {
        switch refusal {
        case .missing: self = .noEntry
        case .badName: self = .invalid
        case .exists: self = .exists
        case .busy: self = Errno(EBUSY)
        case .io(let code): self = Errno(code)
        }
    }
}
