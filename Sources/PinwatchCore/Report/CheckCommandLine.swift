/// The command lines a monitoring system runs every minute for every
/// service, `pinwatch check --config PATH [--state off] ...`, read without
/// ArgumentParser: its reflection over the command types costs about a
/// fifth of `check`'s start-up CPU (15 M of 68 M instructions, mostly
/// first-time protocol-conformance lookups that scan the whole binary).
///
/// Only the plain forms are taken; anything else (help, version, an
/// unknown, repeated, empty or dash-led value, an invalid shard, `--`) gives
/// nil, and ArgumentParser reads the line as before, with its messages.
/// So a line is either read the same way by both, or only by ArgumentParser.
public struct CheckCommandLine: Equatable, Sendable {
    public var config: String?
    public var shard: String?
    public var state: String?
    public var client: String?

    public init(config: String? = nil, shard: String? = nil, state: String? = nil, client: String? = nil) {
        self.config = config
        self.shard = shard
        self.state = state
        self.client = client
    }

    /// Every option `check` takes, as `check --help` lists them; an
    /// end-to-end test holds the two lists together.
    public static let optionNames = ["--config", "-c", "--shard", "--state", "--client"]

    /// `arguments` are the words after the program name.
    public static func plain(_ arguments: [String]) -> CheckCommandLine? {
        guard arguments.first == "check" else { return nil }
        var line = CheckCommandLine()
        var given: [String] = []
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            let name: String
            let value: String
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
                index += 1
            } else {
                guard index + 1 < arguments.count else { return nil }
                name = word
                value = arguments[index + 1]
                index += 2
            }
            let option = name == "-c" ? "--config" : name
            guard !value.isEmpty, !value.hasPrefix("-"), !given.contains(option) else { return nil }
            given.append(option)
            switch option {
            case "--config": line.config = value
            case "--shard":
                guard Shard.problem(value) == nil else { return nil }
                line.shard = value
            case "--state": line.state = value
            case "--client": line.client = value
            default: return nil
            }
        }
        return line
    }
}
