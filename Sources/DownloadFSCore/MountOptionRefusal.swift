/// Why `downloadfs mount` refuses the value of one of its own options,
/// worded with the option as the user wrote it (issue 25): `--split 99` on
/// the command line, `-o split=99` through mount(8), fstab or the helper
/// form (R8) — which reach the command translated into flags, so without
/// this a user who never typed `--split` would be told about it.
public struct MountOptionRefusal: Error, Sendable, Equatable {
    /// The option's name without dashes: `split`, `max-active`.
    public var name: String
    /// The value as given.
    public var value: String
    /// What is wrong with it, as a sentence that follows the option: `must be from 1 to 16`.
    public var problem: String
    /// Given as `-o name=value` (R8) rather than as `--name value`.
    public var givenAsMountOption: Bool

    public init(name: String, value: String, problem: String, givenAsMountOption: Bool) {
        self.name = name
        self.value = value
        self.problem = problem
        self.givenAsMountOption = givenAsMountOption
    }

    /// `--split 99: must be from 1 to 16`, or `-o split=99: must be from 1 to 16`.
    public var message: String {
        givenAsMountOption ? "-o \(name)=\(value): \(problem)" : "--\(name) \(value): \(problem)"
    }
}
