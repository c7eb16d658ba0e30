/// mount(8)'s calling convention for FUSE helpers (R8), turned into the
/// arguments of `downloadfs mount`.
///
/// For an fstab line `STATE MNT fuse.downloadfs noauto,user,max-active=4 0 0`
/// (or `mount -t fuse.downloadfs STATE MNT -o …`), mount(8) runs
/// mount.fuse3, which runs `downloadfs STATE MNT -o OPTIONS` through
/// `/bin/sh` — after dropping `user`, `noauto` and friends and adding `dev`
/// and `suid`. The fuse form `/PATH/downloadfs#STATE` arrives the same way.
/// Our own options come as `name=value` among FUSE's; the rest go to FUSE
/// except what means nothing to a mount of downloadfs (`x-*` comments such
/// as `x-systemd.automount`, `dev`, `suid`: it serves no device or set-uid
/// files).
public struct MountHelperInvocation: Sendable {
    /// downloadfs's options an fstab line may carry, by their `mount` flag.
    public static let ownOptions = ["max-active", "max-tries", "speed-limit", "split",
                                    "max-connections-per-host", "ca-certificate", "on-complete",
                                    "rpc-listen-port", "rpc-secret", "rpc-secret-file"]
    /// downloadfs's flags an fstab line may carry (`-o rpc`, R70): no value.
    public static let ownFlags = ["rpc", "rpc-listen-all", "rpc-allow-origin-all"]
    /// Those of `ownOptions` whose value is a whole number: a value that is
    /// not one is refused here, in the words `-o` used, before the command
    /// line's parser would name its flag.
    public static let wholeNumberOptions: Set<String> = ["max-active", "max-tries", "split", "max-connections-per-host",
                                                         "rpc-listen-port"]
    /// The hidden `downloadfs mount` option naming each option that came as
    /// `-o name=value`, so its errors name it that way (`MountOptionRefusal`).
    public static let givenAsMountOptionFlag = "--given-as-mount-option"
    /// Options mount(8) or mount.fuse3 may pass that FUSE must not get.
    private static let dropped: Set<String> = ["dev", "suid", "defaults", "auto", "noauto", "user",
                                               "nouser", "users", "nofail", "_netdev"]

    public var stateDir: String
    public var mountpoint: String
    /// Ours, in the order given, with `_` read as `-` (`max_active=4` works too).
    public var options: [(name: String, value: String)]
    /// Our flags, in the order given.
    public var flags: [String] = []
    public var fuseOptions: [String]
    public var foreground = false

    /// nil when `arguments` (without the program name) are not in this form:
    /// the first is an option, one of `subcommands` or `help` (the parser's
    /// own `downloadfs help mount`), or there are not two paths before the
    /// first option.
    public static func parse(_ arguments: [String], subcommands: Set<String>) throws(MountHelperError) -> Self? {
        guard arguments.count >= 2, let first = arguments.first, !first.hasPrefix("-"),
              !subcommands.contains(first), first != "help", !arguments[1].hasPrefix("-") else { return nil }
        var invocation = Self(stateDir: arguments[0], mountpoint: arguments[1], options: [], fuseOptions: [])
        var rest = arguments.dropFirst(2)
        while let argument = rest.popFirst() {
            switch argument {
            case "-o":
                guard let list = rest.popFirst() else { throw .missingOptions }
                try invocation.take(list)
            case _ where argument.hasPrefix("-o"):
                try invocation.take(String(argument.dropFirst(2)))
            case "-f":
                invocation.foreground = true
            case "-n", "-s", "-v":
                continue  // mount(8)'s "no mtab", "sloppy", "verbose": nothing to do
            default:
                throw .unexpected(argument)
            }
        }
        return invocation
    }

    /// The same request as `downloadfs mount` arguments. Each value is
    /// glued to its flag (`--max-active=-1`), so one that starts with a dash
    /// is read as the value it is, and each option is marked as given by
    /// `-o` so that an error about it says `-o max-active=-1`.
    public var mountArguments: [String] {
        var out = ["mount", mountpoint, "--state-dir", stateDir]
        for option in options { out.append("--\(option.name)=\(option.value)") }
        for flag in flags { out.append("--\(flag)") }
        for name in Set(options.map(\.name)).sorted() { out.append("\(Self.givenAsMountOptionFlag)=\(name)") }
        for option in fuseOptions { out += ["-o", option] }
        if foreground { out.append("--foreground") }
        return out
    }

    /// One `-o` list: `a,b=c,…`.
    private mutating func take(_ list: String) throws(MountHelperError) {
        for item in list.split(separator: ",", omittingEmptySubsequences: true).map(String.init) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].replacingUnderscores()
            if Self.ownOptions.contains(name) {
                guard parts.count == 2, !parts[1].isEmpty else { throw .missingValue(name) }
                let value = String(parts[1])
                if Self.wholeNumberOptions.contains(name), Int(value) == nil {
                    throw .refused(MountOptionRefusal(name: name, value: value, problem: "must be a whole number",
                                                      givenAsMountOption: true))
                }
                options.append((name, value))
            } else if Self.ownFlags.contains(name) {
                guard parts.count == 1 else {
                    throw .refused(MountOptionRefusal(name: name, value: String(parts[1]), problem: "takes no value",
                                                      givenAsMountOption: true))
                }
                flags.append(name)
            } else if item.hasPrefix("x-") || item.hasPrefix("comment=") || Self.dropped.contains(item) {
                continue
            } else {
                fuseOptions.append(item)
            }
        }
    }
}

private extension Substring {
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
