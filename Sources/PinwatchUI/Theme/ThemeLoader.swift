import Foundation
import PinwatchCore
import PinwatchSystem

/// Finds and reads themes by name or path.
///
/// The lookup order lets a user override a shipped theme per project
/// (`./themes`) or per user (`$XDG_CONFIG_HOME`), and still find the
/// installed copies when run from anywhere, with `default` and `mono`
/// compiled in as the last resort.
package enum ThemeLoader {
    /// The default theme compiled into the binary.
    package static let builtInDefault: Theme = builtIn(BuiltInThemes.defaultYAML, name: "default")

    /// The colourless theme compiled into the binary.
    package static let mono: Theme = builtIn(BuiltInThemes.monoYAML, name: "mono")

    /// A theme is a few dozen lines.
    static let maximumFileBytes = 1024 * 1024

    /// Parses theme YAML; `file` is only used in error messages.
    package static func parse(yaml: String, file: String) throws -> Theme {
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return try ThemeParser.parse(yaml: yaml, file: file, fallbackName: stem)
    }

    /// Loads a theme: a path if `nameOrPath` contains `/` or ends in
    /// `.yaml`, else `NAME.yaml` in the `searchDirectories`, else a
    /// built-in one.
    package static func load(
        nameOrPath requested: String, currentDirectory: String, environment: [String: String], executablePath: String?
    ) throws -> Theme {
        let nameOrPath = BuiltInThemes.aliases[requested] ?? requested
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") {
            let path = nameOrPath.hasPrefix("/") ? nameOrPath : (currentDirectory as NSString).appendingPathComponent(nameOrPath)
            return try loadFile(path)
        }
        let directories = searchDirectories(currentDirectory: currentDirectory, environment: environment, executablePath: executablePath)
        for directory in directories {
            let path = (directory as NSString).appendingPathComponent(nameOrPath + ".yaml")
            if FileManager.default.fileExists(atPath: path) { return try loadFile(path) }
        }
        if let builtIn = BuiltInThemes.all.first(where: { $0.name == nameOrPath }) {
            return nameOrPath == "default" ? builtInDefault : nameOrPath == "mono" ? mono : Self.builtIn(builtIn.yaml, name: builtIn.name)
        }
        let names = BuiltInThemes.all.map(\.name).joined(separator: ", ")
        throw ThemeError(
            file: nameOrPath, line: 0,
            message: "no such theme (built in: \(names); also looked for \(nameOrPath).yaml in \(directories.joined(separator: ", ")))")
    }

    /// Where themes are looked for, in order.
    package static func searchDirectories(currentDirectory: String, environment: [String: String], executablePath: String?) -> [String] {
        var directories = [(currentDirectory as NSString).appendingPathComponent("themes")]
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            directories.append((xdg as NSString).appendingPathComponent("pinwatch/themes"))
        } else if let home = environment["HOME"], !home.isEmpty {
            directories.append((home as NSString).appendingPathComponent(".config/pinwatch/themes"))
        }
        if let executablePath {
            let executableDirectory = ((executablePath as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
            directories.append(
                ((executableDirectory as NSString).appendingPathComponent("../share/pinwatch/themes") as NSString).standardizingPath)
            directories.append((executableDirectory as NSString).appendingPathComponent("themes"))
        }
        return directories
    }

    /// Theme names for `t` to cycle through: `default` first, then every
    /// other theme found, alphabetically, without duplicates.
    package static func availableNames(currentDirectory: String, environment: [String: String], executablePath: String?) -> [String] {
        var names = Set(BuiltInThemes.all.map(\.name))
        for directory in searchDirectories(currentDirectory: currentDirectory, environment: environment, executablePath: executablePath) {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for entry in entries where entry.hasSuffix(".yaml") {
                names.insert(String(entry.dropLast(".yaml".count)))
            }
        }
        return ["default"] + names.subtracting(["default"]).sorted()
    }

    /// The name after `current` in `names`, wrapping around; `t` uses it.
    package static func nextName(after current: String, in names: [String]) -> String {
        guard let index = names.firstIndex(of: current) else { return names.first ?? "default" }
        return names[(index + 1) % names.count]
    }

    /// True when colour must not be used: `NO_COLOR` is set and non-empty
    /// (no-color.org), or the terminal has fewer than 8 colours. The
    /// controller then loads `mono` instead of the configured theme.
    package static func prefersMono(environment: [String: String], colorCount: Int) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return true }
        return colorCount < 8
    }

    private static func loadFile(_ path: String) throws -> Theme {
        let text: String
        do {
            text = try RegularFile.readText(path, limit: maximumFileBytes)
        } catch {
            throw ThemeError(file: path, line: error.line ?? 0, message: "cannot read theme file: \(error.reason)")
        }
        return try parse(yaml: text, file: path)
    }

    static func builtIn(_ yaml: String, name: String) -> Theme {
        // A test parses both built-ins; should one ever break, plain beats a crash.
        (try? ThemeParser.parse(yaml: yaml, file: "<built-in \(name)>", fallbackName: name)) ?? Theme(name: name, roles: [:])
    }
}
