import PinwatchCore

/// The command lines a monitoring system runs every minute for every
/// service, `pinwatch check --config PATH [--state off] ...`, read without
/// ArgumentParser: its reflection over the command types (first-time
/// protocol-conformance lookups that scan the whole binary) is a quarter of
/// a one-host `check`'s CPU (Benchmarks/README.md, "Performance rule
/// review"). Read here, in the executable: Core never sees argv.
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
    /// `--host`, `-w`, `-c DAYS`, `--timeout`: the monitoring-plugin options.
    public var overrides: CheckOverrides
    /// `--ascii`: the output's symbols in ASCII, as a C locale gets them.
    public var ascii = false

    public init(
        config: String? = nil, shard: String? = nil, state: String? = nil, client: String? = nil,
        overrides: CheckOverrides = CheckOverrides(), ascii: Bool = false
    ) {
        self.ascii = ascii
        self.config = config
        self.shard = shard
        self.state = state
        self.client = client
        self.overrides = overrides
    }

    /// Every option `check` takes, as `check --help` lists them; an
    /// end-to-end test holds the two lists together.
    public static let optionNames = [
        "--config", "-c", "--critical", "-w", "--warning", "--host", "--connect", "--timeout", "--shard", "--state", "--client",
        "--ascii",
    ]
    /// The options among `optionNames` that take no value.
    static let flagNames = ["--ascii"]

    /// `arguments` are the words after the program name.
    public static func plain(_ arguments: [String]) -> CheckCommandLine? {
        guard
            let values = PlainOptions.read(
                arguments, command: "check", options: optionNames, flags: flagNames, canonical: canonicalName)
        else { return nil }
        var overrides = CheckOverrides(host: values["--host"], connect: values["--connect"], timeout: values["--timeout"])
        // A threshold that is not a whole number is ArgumentParser's to refuse, with its message.
        if let warning = values["--warning"] {
            guard let days = Int(warning) else { return nil }
            overrides.warningDays = days
        }
        if let critical = values["--critical"] {
            guard let days = Int(critical) else { return nil }
            overrides.criticalDays = days
        }
        return CheckCommandLine(
            config: values["--config"], shard: values["--shard"], state: values["--state"], client: values["--client"],
            overrides: overrides, ascii: values["--ascii"] != nil)
    }

    /// `-c` is the critical threshold, as in every monitoring plugin, when
    /// its value is a number; any other value is the configuration path it
    /// has always been, so existing service definitions keep working.
    static func canonicalName(_ name: String, value: String) -> String {
        switch name {
        case "-c": return Int(value) != nil ? "--critical" : "--config"
        case "-w": return "--warning"
        default: return name
        }
    }
}

/// `pinwatch snapshot --format json|prometheus [--config PATH] ...`, what a
/// script or a textfile collector runs, read without ArgumentParser for the
/// same reason as `check` (CheckCommandLine). Only the machine formats:
/// the screen formats have options of their own (`--width`, `--theme`) and
/// go to ArgumentParser with everything else.
public struct SnapshotCommandLine: Equatable, Sendable {
    public enum Format: String, Sendable {
        case json, prometheus
    }

    public var format: Format
    public var config: String?
    public var shard: String?
    public var state: String?

    public init(format: Format, config: String? = nil, shard: String? = nil, state: String? = nil) {
        self.format = format
        self.config = config
        self.shard = shard
        self.state = state
    }

    static let optionNames = ["--format", "--config", "-c", "--shard", "--state"]

    /// `arguments` are the words after the program name; `--format` is required.
    public static func plain(_ arguments: [String]) -> SnapshotCommandLine? {
        guard let values = PlainOptions.read(arguments, command: "snapshot", options: optionNames, canonical: Self.canonicalName),
            let format = values["--format"].flatMap(Format.init(rawValue:))
        else { return nil }
        return SnapshotCommandLine(format: format, config: values["--config"], shard: values["--shard"], state: values["--state"])
    }

    static func canonicalName(_ name: String, value: String) -> String {
        name == "-c" ? "--config" : name
    }
}

/// The plain forms both readers take: each option at most once, as
/// `--name value` or `--name=value`, a value that is neither empty nor
/// dash-led, short names as `canonical` spells them long, and a valid `--shard`. Nil for anything
/// else, so that ArgumentParser reads the line, with its own messages.
enum PlainOptions {
    static func read(
        _ arguments: [String], command: String, options: [String], flags: [String] = [], canonical: (String, String) -> String
    ) -> [String: String]? {
        guard arguments.first == command else { return nil }
        // Sized once: a [String: String] that grows makes the runtime resolve
        // its storage type by mangled name the first time.
        var values = [String: String](minimumCapacity: options.count)
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            if flags.contains(word) {
                guard values[word] == nil else { return nil }
                values[word] = ""
                index += 1
                continue
            }
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
            guard options.contains(name), !flags.contains(name) else { return nil }
            let option = canonical(name, value)
            guard !value.isEmpty, !value.hasPrefix("-"), values[option] == nil else { return nil }
            if option == "--shard", Shard.problem(value) != nil { return nil }
            values[option] = value
        }
        return values
    }
}
