/// Why `downloadfs STATE MNT -o …` (R8) cannot be read, in the user's words.
public enum MountHelperError: Error, Sendable, Equatable {
    case missingOptions
    case missingValue(String)
    case unexpected(String)
    /// A value of one of our options that is refused before the command line is parsed.
    case refused(MountOptionRefusal)

    public var message: String {
        switch self {
        case .missingOptions:
            return "-o needs a list of options (e.g. -o max-active=4,allow_other)"
        case .missingValue(let name):
            return "option \(name) needs a value: \(name)=VALUE"
        case .unexpected(let argument):
            return "unexpected \(argument) in `downloadfs STATE_DIR MOUNTPOINT -o OPTIONS` (the form mount(8) uses)"
        case .refused(let refusal):
            return refusal.message
        }
    }
}
