/// What a hook's process environment holds: not the exporter's (which may
/// carry a proxy URL with its password, tokens for pin-list downloads, …)
/// but a documented minimum, plus the names its `env:` allows.
public enum HookEnvironment {
    /// Passed when set: where programs are, whose home, language and time zone.
    public static let minimalNames: Set<String> = ["PATH", "HOME", "LANG", "TZ"]
    /// Passed when set: locale categories, and the hooks' own settings
    /// (`PINWATCH_WEBHOOK_URL` in contrib/hooks).
    public static let minimalPrefixes = ["LC_", "PINWATCH_"]

    /// `NAME=value` entries, sorted by name.
    public static func entries(from environment: [String: String], allowing allowed: [String]) -> [String] {
        let extra = Set(allowed)
        return environment.filter { name, _ in
            minimalNames.contains(name) || minimalPrefixes.contains { name.hasPrefix($0) } || extra.contains(name)
        }
        .sorted { $0.key < $1.key }
        .map { "\($0.key)=\($0.value)" }
    }

    /// Letters, digits and `_`, not starting with a digit: a name a shell
    /// could export.
    public static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
