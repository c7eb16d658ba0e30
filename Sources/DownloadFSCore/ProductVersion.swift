/// downloadfs's version, shown by `downloadfs --version`, in the man page
/// and in the User-Agent of every request. Raised with each release.
public enum ProductVersion {
    public static let current = "0.12.0"
}
