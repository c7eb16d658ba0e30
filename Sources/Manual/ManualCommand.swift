import Foundation

/// One command of the command line as swift-argument-parser describes it
/// (`ParsableCommand._dumpHelp()`, the JSON of `--experimental-dump-help`):
/// the part of its `CommandInfoV0` the manual shows.
///
/// A mirror rather than argument-parser's own type: `ArgumentParserToolInfo`
/// is a target of that package, not a product another package can import
/// (1.8.2), and the JSON is the form the package documents as stable
/// (`serializationVersion` 0). Keeping the manual off `ArgumentParser`
/// also lets its tests build without the executable.
public struct ManualCommand: Decodable, Sendable, Equatable {
    public var commandName: String
    public var superCommands: [String]?
    public var shouldDisplay: Bool
    public var abstract: String?
    public var discussion: String?
    public var subcommands: [ManualCommand]?
    public var arguments: [ManualArgument]?

    public init(commandName: String, superCommands: [String]? = nil, shouldDisplay: Bool = true,
                abstract: String? = nil, discussion: String? = nil,
                subcommands: [ManualCommand]? = nil, arguments: [ManualArgument]? = nil) {
        self.commandName = commandName
        self.superCommands = superCommands
        self.shouldDisplay = shouldDisplay
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.arguments = arguments
    }

    private enum CodingKeys: String, CodingKey {
        case commandName, superCommands, shouldDisplay, abstract, discussion, subcommands, arguments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        commandName = try container.decode(String.self, forKey: .commandName)
        superCommands = try container.decodeIfPresent([String].self, forKey: .superCommands)
        // Absent means shown, as argument-parser writes it.
        shouldDisplay = try container.decodeIfPresent(Bool.self, forKey: .shouldDisplay) ?? true
        abstract = try container.decodeIfPresent(String.self, forKey: .abstract)
        discussion = try container.decodeIfPresent(String.self, forKey: .discussion)
        subcommands = try container.decodeIfPresent([ManualCommand].self, forKey: .subcommands)
        arguments = try container.decodeIfPresent([ManualArgument].self, forKey: .arguments)
    }

    /// The root command of a `--experimental-dump-help` document.
    public static func root(ofToolInfo json: Data) throws -> ManualCommand {
        struct ToolInfo: Decodable {
            var serializationVersion: Int
            var command: ManualCommand
        }
        let info = try JSONDecoder().decode(ToolInfo.self, from: json)
        guard info.serializationVersion == 0 else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "tool info version \(info.serializationVersion), not 0"))
        }
        return info.command
    }

    /// The subcommands a user sees: not hidden ones, nor the `help`
    /// argument-parser adds to every tool (`downloadfs help mount` is
    /// `downloadfs mount --help`, which the page mentions once).
    public var shownSubcommands: [ManualCommand] {
        (subcommands ?? []).filter { $0.shouldDisplay && $0.commandName != "help" }
    }

    /// The arguments a user sees, positional ones first as `--help` shows them.
    public var shownArguments: [ManualArgument] {
        let shown = (arguments ?? []).filter(\.shouldDisplay)
        return shown.filter { $0.kind == .positional } + shown.filter { $0.kind != .positional }
    }

    /// `downloadfs mount`: the words that run this command.
    public var fullName: String {
        ((superCommands ?? []) + [commandName]).joined(separator: " ")
    }
}
