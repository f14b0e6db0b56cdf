import Foundation
import XCTest

/// README's architecture block is the map a newcomer reads first: it names
/// every target of Package.swift, and the sentences under it name exactly
/// the targets whose sources import OpenSSL, libcurl, ncurses, SQLite and zlib.
final class ReadmeArchitectureTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private struct Target {
        let name: String
        let isTest: Bool
        let path: String
    }

    /// Each `.target`, `.executableTarget`, `.systemLibrary` and `.testTarget`
    /// of the manifest, with its folder (`path:`, else the default one).
    private static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try NSRegularExpression(pattern: #"\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)""#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        let matches = declaration.matches(in: manifest, range: range)
        return matches.enumerated().map { index, match in
            let kind = String(manifest[Range(match.range(at: 1), in: manifest)!])
            let name = String(manifest[Range(match.range(at: 2), in: manifest)!])
            // The declaration's own text runs to the next declaration.
            let end = index + 1 < matches.count ? matches[index + 1].range.location : range.length
            let own = (manifest as NSString).substring(with: NSRange(location: match.range.location, length: end - match.range.location))
            let path = own.range(of: #"path: "[^"]+""#, options: .regularExpression).map {
                String(own[$0].dropFirst("path: \"".count).dropLast())
            }
            let isTest = kind == "testTarget"
            return Target(name: name, isTest: isTest, path: path ?? (isTest ? "Tests/\(name)" : "Sources/\(name)"))
        }
    }

    private static func readme() throws -> String {
        try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The code block under `## Architecture`, and the paragraph after it.
    private static func architecture() throws -> (block: String, paragraph: String) {
        let text = try readme()
        let section = try XCTUnwrap(text.range(of: "\n## Architecture\n"), "README has an Architecture section")
        let open = try XCTUnwrap(text.range(of: "\n```\n", range: section.upperBound..<text.endIndex))
        let close = try XCTUnwrap(text.range(of: "\n```\n", range: open.upperBound..<text.endIndex))
        let rest = text[close.upperBound...].drop { $0 == "\n" }
        let paragraph = rest.range(of: "\n\n").map { String(rest[..<$0.lowerBound]) } ?? String(rest)
        return (String(text[open.upperBound..<close.lowerBound]), paragraph.replacingOccurrences(of: "\n", with: " "))
    }

    private static func mentions(_ text: String, _ name: String) -> Bool {
        text.range(of: "(?<![A-Za-z0-9_-])\(NSRegularExpression.escapedPattern(for: name))(?![A-Za-z0-9_-])", options: .regularExpression)
            != nil
    }

    func testTheBlockNamesEveryTargetOfThePackage() throws {
        let block = try Self.architecture().block
        for target in try Self.targets() {
            if target.isTest, target.name.hasPrefix("Pinwatch"), target.name.hasSuffix("Tests"), block.contains("Pinwatch*Tests") {
                continue
            }
            XCTAssertTrue(Self.mentions(block, target.name), "README's architecture block does not name \(target.name)")
        }
    }

    /// The Swift files of each target that import `module`.
    private static func importers(of module: String, among targets: [Target]) throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(@\w+\s+)*((public|package|internal|fileprivate|private)\s+)?import\s+"# + module + #"\b"#,
            options: .anchorsMatchLines)
        var found: Set<String> = []
        for target in targets {
            let folder = repository.appendingPathComponent(target.path)
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in walker where file.pathExtension == "swift" {
                let source = try String(contentsOf: file, encoding: .utf8)
                if pattern.firstMatch(in: source, range: NSRange(source.startIndex..., in: source)) != nil {
                    found.insert(target.name)
                    break
                }
            }
        }
        return found
    }

    /// `lead` starts the clause that names a library's users; it ends at `end`.
    private static func named(after lead: String, until end: String, in paragraph: String, among targets: [Target]) throws -> Set<String> {
        let start = try XCTUnwrap(paragraph.range(of: lead), "README's architecture paragraph lacks \"\(lead)\"")
        let stop = paragraph.range(of: end, range: start.upperBound..<paragraph.endIndex)?.lowerBound ?? paragraph.endIndex
        let clause = String(paragraph[start.upperBound..<stop])
        return Set(targets.map(\.name).filter { !$0.hasPrefix("C") && mentions(clause, $0) })
    }

    func testTheParagraphNamesWhoTouchesEachSystemLibrary() throws {
        let targets = try Self.targets()
        let paragraph = try Self.architecture().paragraph
        for (module, lead, end) in [
            ("COpenSSL", "OpenSSL is touched by", "; every other target"),
            ("CCurl", "libcurl is called by", "."),
            ("CNCurses", "ncurses is touched by", ","),
            ("CSQLite", "SQLite by", ","),
            ("CZlib", "zlib by", ","),
        ] {
            XCTAssertEqual(
                try Self.named(after: lead, until: end, in: paragraph, among: targets).sorted(),
                try Self.importers(of: module, among: targets).sorted(), "README: \"\(lead) …\" against the imports of \(module)")
        }
    }
}
