import Foundation
import PinwatchTestSupport
import XCTest

/// The completion scripts the package installs (`--generate-completion-script`),
/// run by the real shells: file names for `--config`, `--state`, `--trust`,
/// `--chain` and the files of `pin` and `import`; theme names, built in and from the
/// user's theme folder, for `--theme`.
final class ShellCompletionTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-completion-\(UUID().uuidString)")
        let themes = folder.appendingPathComponent("xdg/pinwatch/themes")
        try FileManager.default.createDirectory(at: themes, withIntermediateDirectories: true)
        for name in ["alpha.yaml", "bundle.pem", "notes.txt"] {
            FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data())
        }
        FileManager.default.createFile(atPath: themes.appendingPathComponent("solarized-night.yaml").path, contents: Data())
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The binary first on PATH (the scripts run `pinwatch` for theme
    /// names), the user's theme folder under XDG_CONFIG_HOME.
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = PinwatchBinary.url.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("xdg").path
        environment["LANG"] = "C.UTF-8"
        return environment
    }

    private func completionScript(_ shell: String, named name: String) throws -> URL {
        let outcome = try PinwatchBinary.run(["--generate-completion-script", shell])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let directory = folder.appendingPathComponent("completions-\(shell)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try outcome.stdout.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func requireShell(_ path: String) throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: path), "\(path) is not installed (apt-get install zsh fish)",
            skip: { XCTSkip($0) })
    }

    private func lines(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// The cases every shell must pass: the words before the cursor, the
    /// word being completed last, and what must and must not be offered.
    private let cases: [(words: [String], offered: Set<String>, notOffered: Set<String>)] = [
        (["pinwatch", "watch", "--theme", ""], ["default", "mono", "high-contrast", "colorblind", "solarized-night"], ["alpha.yaml"]),
        (["pinwatch", "snapshot", "--theme", "sol"], ["solarized-night"], ["default"]),
        (["pinwatch", "check", "--config", ""], ["alpha.yaml", "bundle.pem", "notes.txt"], []),
        (["pinwatch", "watch", "--state", "al"], ["alpha.yaml"], ["bundle.pem"]),
        (["pinwatch", "inspect", "example.com", "--trust", "bu"], ["bundle.pem"], ["alpha.yaml"]),
        (["pinwatch", "preflight", "example.com", "--chain", "bu"], ["bundle.pem"], ["alpha.yaml"]),
        (["pinwatch", "pin", ""], ["alpha.yaml", "bundle.pem"], []),
        (["pinwatch", "import", "no"], ["notes.txt"], ["bundle.pem"]),
    ]

    /// bash: the function `complete -p pinwatch` names, called as bash's
    /// programmable completion calls it (COMP_WORDS, COMP_CWORD, COMP_LINE,
    /// COMP_POINT; command, word, previous word).
    func testBashCompletesFilesAndThemeNames() throws {
        let script = try completionScript("bash", named: "pinwatch")
        let harness = """
            source "$0"
            function=$(complete -p pinwatch | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
            [[ -n "$function" ]] || { echo "no completion function for pinwatch" >&2; exit 3; }
            COMP_WORDS=("$@")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="$*"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            "$function" pinwatch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        for (words, offered, notOffered) in cases {
            let outcome = try SpawnedCommand.run(
                "/bin/bash", ["--norc", "--noprofile", "-c", harness, script.path] + words, environment: environment,
                currentDirectory: folder, timeout: 30)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let candidates = lines(outcome.stdout)
            XCTAssertTrue(offered.isSubset(of: candidates), "bash, \(words): \(candidates.sorted())")
            XCTAssertTrue(notOffered.isDisjoint(with: candidates), "bash, \(words): \(candidates.sorted())")
        }
    }

    /// zsh: the `_pinwatch` function from fpath, under compinit, completing
    /// a typed line in the line editor (`ZshCompletionCapture`).
    func testZshCompletesFilesAndThemeNames() throws {
        try requireShell("/usr/bin/zsh")
        let script = try completionScript("zsh", named: "_pinwatch")
        let inner = folder.appendingPathComponent("inner.zsh")
        let capture = folder.appendingPathComponent("capture.zsh")
        try ZshCompletionCapture.inner.write(to: inner, atomically: true, encoding: .utf8)
        try ZshCompletionCapture.capture.write(to: capture, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("offered")
        var environment = environment
        environment["CAPTURE_OUT"] = out.path
        environment["CAPTURE_FPATH"] = script.deletingLastPathComponent().path
        for (words, offered, notOffered) in cases {
            let outcome = try SpawnedCommand.run(
                "/usr/bin/zsh", ["-f", capture.path, inner.path] + words, environment: environment, currentDirectory: folder,
                timeout: 40)
            XCTAssertEqual(outcome.status, 0, "zsh, \(words): the completion did not run: \(outcome.output)")
            let candidates = lines(try String(contentsOf: out, encoding: .utf8)).subtracting(["__DONE__"])
            XCTAssertTrue(offered.isSubset(of: candidates), "zsh, \(words): \(candidates.sorted())")
            XCTAssertTrue(notOffered.isDisjoint(with: candidates), "zsh, \(words): \(candidates.sorted())")
        }
    }

    /// fish: an interactive fish in tmux (its `commandline`, which the
    /// script asks for the cursor, has none in `fish -c`), a Tab typed
    /// after the words, and the candidates read off the screen: listed in
    /// the pager, or written into the line when only one fits.
    func testFishCompletesFilesAndThemeNames() throws {
        try requireShell("/usr/bin/fish")
        let script = try completionScript("fish", named: "pinwatch.fish")
        let setup = [
            "set -g fish_greeting ''", "function fish_prompt; echo 'ready> '; end", "cd \(TmuxSession.quote(folder.path))",
            "source \(TmuxSession.quote(script.path))",
        ].joined(separator: "; ")
        // TmuxSession sets LANG, TERM and a state home of its own.
        let passed = environment.filter { ["PATH", "XDG_CONFIG_HOME", "HOME"].contains($0.key) }
        for (words, offered, notOffered) in cases {
            let session = try TmuxSession(
                command: "fish --no-config -C \(TmuxSession.quote(setup))", columns: 160, rows: 30, environment: passed)
            defer { session.close() }
            try session.waitForScreen(timeout: 20) { $0.contains("ready>") }
            try session.type(words.joined(separator: " "))
            try session.send("Tab")
            let typed = words.joined(separator: " ")
            let screen = try session.waitForScreen(timeout: 20) { screen in
                offered.allSatisfy { name in
                    screen.split(separator: "\n").contains { line in
                        line.contains(name) && !(line.contains("ready>") && typed.contains(name))
                    }
                }
            }
            for name in notOffered {
                XCTAssertFalse(screen.contains(name), "fish, \(words) offered \(name):\n\(screen)")
            }
        }
    }
}
