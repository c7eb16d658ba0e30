/// One argument, option or flag of a command as swift-argument-parser
/// describes it: the part of its `ArgumentInfoV0` the manual shows (see
/// `ManualCommand` for why a mirror).
public struct ManualArgument: Decodable, Sendable, Equatable {
    public enum Kind: String, Decodable, Sendable {
        case positional, option, flag
    }

    public struct Name: Decodable, Sendable, Equatable {
        public enum Kind: String, Decodable, Sendable {
            case long, short, longWithSingleDash
        }

        public var kind: Kind
        public var name: String

        public init(kind: Kind, name: String) {
            self.kind = kind
            self.name = name
        }

        /// The name as typed: `--max-active`, `-o`, `-long`.
        public var written: String {
            switch kind {
            case .long: return "--" + name
            case .short, .longWithSingleDash: return "-" + name
            }
        }
    }

    public var kind: Kind
    public var shouldDisplay: Bool
    public var isOptional: Bool
    public var isRepeating: Bool
    public var names: [Name]?
    public var preferredName: Name?
    public var valueName: String?
    public var defaultValue: String?
    public var abstract: String?
    public var discussion: String?

    public init(kind: Kind, shouldDisplay: Bool = true, isOptional: Bool = false, isRepeating: Bool = false,
                names: [Name]? = nil, preferredName: Name? = nil, valueName: String? = nil,
                defaultValue: String? = nil, abstract: String? = nil, discussion: String? = nil) {
        self.kind = kind
        self.shouldDisplay = shouldDisplay
        self.isOptional = isOptional
        self.isRepeating = isRepeating
        self.names = names
        self.preferredName = preferredName
        self.valueName = valueName
        self.defaultValue = defaultValue
        self.abstract = abstract
        self.discussion = discussion
    }

    /// Every name, long ones first (`--input-file`, `-i`), as the man page lists them.
    public var writtenNames: [String] {
        let all = names ?? preferredName.map { [$0] } ?? []
        return (all.filter { $0.kind != .short } + all.filter { $0.kind == .short }).map(\.written)
    }
}
