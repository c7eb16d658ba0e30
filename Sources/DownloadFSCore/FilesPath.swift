/// A place under `files/` (R35): `NAME` at the top, or `FOLDER/NAME` where
/// FOLDER is one or more folder names joined by `/`. A task's `name` holds
/// its place this way (the catalog's `name` column too): a name alone never
/// holds a `/` (R17 turns it into `_`), so a place from before folders
/// reads as a name at the top, and names stay unique per folder because
/// places are unique.
///
/// Every part of a place is a name `FileName.sanitize` keeps as it is.
public enum FilesPath {
    private static let slash = UInt8(ascii: "/")

    /// `folder/name`, or `name` when `folder` is empty (the top of `files/`).
    public static func join(_ folder: some StringProtocol, _ name: some StringProtocol) -> String {
        folder.isEmpty ? String(name) : folder + "/" + name
    }

    /// The folder part: "" for a place at the top.
    public static func folder(of path: String) -> String {
        guard let cut = path.utf8.lastIndex(of: slash) else { return "" }
        return String(path[..<cut])
    }

    /// The last part: the file's (or folder's) own name. A place at the
    /// top is its name, returned as it is (no copy: a `status` of a
    /// million tasks asks a million times).
    public static func name(of path: String) -> String {
        guard let cut = path.utf8.lastIndex(of: slash) else { return path }
        return String(path[path.utf8.index(after: cut)...])
    }

    /// Whether `path` lies somewhere inside `folder` (not `folder` itself).
    public static func isInside(_ path: String, folder: String) -> Bool {
        path.utf8.count > folder.utf8.count && path.hasPrefix(folder)
            && path.utf8[path.utf8.index(path.startIndex, offsetBy: folder.utf8.count)] == slash
    }

    /// `path`, which lies inside `folder`, once `folder` is moved to `newFolder`.
    public static func moved(_ path: String, from folder: String, to newFolder: String) -> String {
        newFolder + path[path.utf8.index(path.startIndex, offsetBy: folder.utf8.count)...]
    }

    /// Whether every part of `path` is a name R17 keeps as it is: what a
    /// `mv` or `mkdir` inside `files/` may name (anything else is EINVAL).
    public static func isValid(_ path: String) -> Bool {
        !path.isEmpty && path.split(separator: "/", omittingEmptySubsequences: false)
            .allSatisfy { !$0.isEmpty && FileName.sanitize(String($0)) == $0 }
    }

    /// The longest folder `dir=` may name, in bytes: with the state dir's
    /// path before it and a name of up to 255 bytes after it, a path must
    /// stay under Linux's 4096 bytes, or the finished file could never be
    /// moved into it (a download that can never finish).
    public static let maxFolderBytes = 2048

    /// The folder `dir=FOLDER` asks for (R35): relative, `/`-separated, each
    /// part sanitised as R17 does a name; or why it is refused (an empty,
    /// `.` or `..` part, which includes a leading or trailing `/`).
    public static func folder(fromOption raw: String) -> Result<String, FolderOptionError> {
        guard !raw.isEmpty else { return .failure(FolderOptionError("empty folder")) }
        var parts: [String] = []
        for part in raw.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case "":
                return .failure(FolderOptionError(raw.hasPrefix("/")
                    ? "an absolute path (a folder is relative to files/)" : "an empty part (\"//\" or a trailing \"/\")"))
            case ".", "..":
                return .failure(FolderOptionError("a \"\(part)\" part (a folder stays inside files/)"))
            default:
                let name = FileName.sanitizedOrEmpty(String(part))
                guard !name.isEmpty else {
                    return .failure(FolderOptionError("the part \"\(part)\" leaves no name once cleaned (R17)"))
                }
                parts.append(name)
            }
        }
        let folder = parts.joined(separator: "/")
        guard folder.utf8.count <= maxFolderBytes else {
            return .failure(FolderOptionError(
                "a folder path of \(folder.utf8.count) bytes (at most \(maxFolderBytes): the state dir's path and the file's name must fit in the 4096 bytes of a path)"))
        }
        return .success(folder)
    }
}
