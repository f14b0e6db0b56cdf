import Foundation
import Yams

extension RegularFile {
    /// The names in a directory (without `.` and `..`), at most `limit` of
    /// them; injected because Core does no I/O (PinwatchSystem's
    /// `RegularFile.listDirectory`).
    public typealias DirectoryLister = @Sendable (_ path: String, _ limit: Int) throws(ReadError) -> [String]
}

/// A file `include:` or `file_sd:` brought in, read and composed.
struct IncludedDocument {
    enum Kind {
        /// `include:`: `hosts:` and `pinsets:` in pinwatch's own form.
        case configuration
        /// `file_sd:`: Prometheus's file service discovery form.
        case fileSD
    }

    var path: String
    var kind: Kind
    var root: Node?
}

/// Finds, reads and composes the files `include:` and `file_sd:` name,
/// collecting every problem with the file and line it is in.
struct ConfigIncludes: NodeReading {
    /// Included files in all, so that `include: /*` cannot read a whole disk.
    static let maximumFiles = 256
    /// Bytes of all included files together.
    static let maximumTotalBytes = 64 * 1024 * 1024
    /// Entries of a directory a pattern is matched in.
    static let maximumDirectoryEntries = 10_000

    let file: String
    let baseDirectory: String
    let readText: RegularFile.TextReader?
    let listDirectory: RegularFile.DirectoryLister?
    private(set) var problems: [ConfigProblem] = []

    init(file: String, baseDirectory: String, readText: RegularFile.TextReader?, listDirectory: RegularFile.DirectoryLister?) {
        self.file = file
        self.baseDirectory = baseDirectory
        self.readText = readText
        self.listDirectory = listDirectory
    }

    mutating func report(line: Int, key: String, _ message: String) {
        problems.append(ConfigProblem(file: file, line: line, key: key, message: message))
    }

    /// The documents of the main file's `include:` and `file_sd:`, in the
    /// order written, each pattern's matches sorted by name.
    mutating func documents(of root: Node?) -> [IncludedDocument] {
        guard case .mapping(let mapping) = root else { return [] }
        var documents: [IncludedDocument] = []
        let mainFile = Self.normalized(file)
        var seen: Set<String> = [mainFile]
        var totalBytes = 0
        for (keyNode, value) in mapping {
            let kind: IncludedDocument.Kind
            switch keyNode.scalar?.string {
            case "include": kind = .configuration
            case "file_sd": kind = .fileSD
            default: continue
            }
            let key = keyNode.scalar?.string ?? ""
            guard let items = list(value, key: key) else { continue }
            for (index, item) in items.enumerated() {
                guard let pattern = string(item, key: "\(key)[\(index)]") else { continue }
                for path in matches(of: pattern, node: item, key: "\(key)[\(index)]") {
                    if path == mainFile {
                        report(
                            item, key: "\(key)[\(index)]", "\(EchoedInput.quoted(pattern)) matches this file itself: an include cannot loop"
                        )
                        continue
                    }
                    guard seen.insert(path).inserted else { continue }
                    guard documents.count < Self.maximumFiles else {
                        report(item, key: "\(key)[\(index)]", "more than \(Self.maximumFiles) included files")
                        return documents
                    }
                    if let document = read(path, kind: kind, totalBytes: &totalBytes) { documents.append(document) }
                }
            }
        }
        return documents
    }

    /// The files `pattern` names: one path, or the names in one directory
    /// that match its last component (`conf.d/*.yaml`; `*` and `?`, as
    /// Prometheus's file_sd allows them, only in the file name). Names
    /// starting with a dot (editors' swap files) match only a pattern that
    /// starts with one.
    private mutating func matches(of pattern: String, node: Node, key: String) -> [String] {
        let path = resolve(pattern)
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard !directory.contains(where: { $0 == "*" || $0 == "?" }) else {
            report(node, key: key, "\(EchoedInput.quoted(pattern)): wildcards only in the file name (conf.d/*.yaml)")
            return []
        }
        guard name.contains(where: { $0 == "*" || $0 == "?" }) else { return [path] }
        guard let listDirectory else {
            report(node, key: key, "no directory lister given")
            return []
        }
        let names: [String]
        do {
            names = try listDirectory(directory, Self.maximumDirectoryEntries)
        } catch {
            report(node, key: key, "\(EchoedInput.quoted(pattern)): \(error)")
            return []
        }
        let pattern = Array(name)
        return names.filter { candidate in
            (candidate.hasPrefix(".") == name.hasPrefix(".")) && Self.matches(Array(candidate), pattern[...])
        }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Shell-style matching of `*` (any run) and `?` (one character).
    static func matches(_ name: [Character], _ pattern: ArraySlice<Character>) -> Bool {
        var nameIndex = 0
        var patternIndex = pattern.startIndex
        // Where the last `*` was and how much of the name it has taken.
        var star: (pattern: Int, name: Int)?
        while nameIndex < name.count {
            if patternIndex < pattern.endIndex, pattern[patternIndex] == "?" || pattern[patternIndex] == name[nameIndex] {
                nameIndex += 1
                patternIndex += 1
            } else if patternIndex < pattern.endIndex, pattern[patternIndex] == "*" {
                star = (patternIndex, nameIndex)
                patternIndex += 1
            } else if let last = star {
                star = (last.pattern, last.name + 1)
                nameIndex = last.name + 1
                patternIndex = last.pattern + 1
            } else {
                return false
            }
        }
        return pattern[patternIndex...].allSatisfy { $0 == "*" }
    }

    private mutating func read(_ path: String, kind: IncludedDocument.Kind, totalBytes: inout Int) -> IncludedDocument? {
        guard let readText else {
            problems.append(ConfigProblem(file: path, line: 0, key: "", message: "no file reader given"))
            return nil
        }
        let text: String
        do {
            text = try readText(path, ConfigLoader.maximumFileBytes)
        } catch {
            let message =
                error.line != nil || error.reason == RegularFile.noSuchFile ? error.reason : "cannot read the file: \(error.reason)"
            problems.append(ConfigProblem(file: path, line: error.line ?? 0, key: "", message: message))
            return nil
        }
        totalBytes += text.utf8.count
        guard totalBytes <= Self.maximumTotalBytes else {
            problems.append(
                ConfigProblem(
                    file: path, line: 0, key: "",
                    message: "included files hold more than \(Self.maximumTotalBytes / 1024 / 1024) MiB together"))
            return nil
        }
        if let found = YAMLAliasGuard.firstAliasOrAnchor(in: text) {
            problems.append(ConfigProblem(file: path, line: found.line, key: "", message: YAMLAliasGuard.message(for: found)))
            return nil
        }
        do {
            return IncludedDocument(path: path, kind: kind, root: try YAMLComposer.compose(text))
        } catch {
            problems.append(YAMLSyntaxProblem.problem(for: error, file: path, text: text))
            return nil
        }
    }

    private func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return Self.normalized(expanded) }
        return Self.normalized((baseDirectory as NSString).appendingPathComponent(expanded))
    }

    /// `path` without `.` components and with `dir/..` pairs folded, so
    /// that one file has one name however a pattern reached it (symbolic
    /// links are not followed: Core does not ask the disk).
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
