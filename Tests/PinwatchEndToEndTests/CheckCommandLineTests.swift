import XCTest

@testable import pinwatch

/// The plain `check` lines are read without ArgumentParser; every other
/// line must be left to it (nil), so that its messages and rules still apply.
final class CheckCommandLineTests: XCTestCase {

    func testPlainFormsAreRead() {
        XCTAssertEqual(CheckCommandLine.plain(["check"]), CheckCommandLine())
        XCTAssertEqual(
            CheckCommandLine.plain(["check", "--config", "/etc/pinwatch.yaml", "--state", "off"]),
            CheckCommandLine(config: "/etc/pinwatch.yaml", state: "off"))
        XCTAssertEqual(
            CheckCommandLine.plain(["check", "-c", "a.yaml", "--shard", "1/3", "--client", "android 5.2", "--state=/var/lib/s.sqlite"]),
            CheckCommandLine(config: "a.yaml", shard: "1/3", state: "/var/lib/s.sqlite", client: "android 5.2"))
        XCTAssertEqual(
            CheckCommandLine.plain(["check", "--config=with=equals.yaml"]), CheckCommandLine(config: "with=equals.yaml"))
    }

    /// `--ascii` takes no value; given twice, or with one, it is ArgumentParser's.
    func testAsciiIsAFlag() {
        XCTAssertEqual(
            CheckCommandLine.plain(["check", "--ascii", "--config", "a.yaml"]), CheckCommandLine(config: "a.yaml", ascii: true))
        XCTAssertEqual(CheckCommandLine.plain(["check", "--config", "a.yaml", "--ascii"]), CheckCommandLine(config: "a.yaml", ascii: true))
        XCTAssertNil(CheckCommandLine.plain(["check", "--ascii", "--ascii"]))
        XCTAssertNil(CheckCommandLine.plain(["check", "--ascii=yes"]))
    }

    func testEverythingElseIsLeftToArgumentParser() {
        let declined: [[String]] = [
            [],
            ["watch"],
            ["snapshot", "--config", "a.yaml"],
            ["check", "--help"],
            ["check", "-h"],
            ["check", "--version"],
            ["check", "--config"],
            ["check", "--config", "a.yaml", "--config", "b.yaml"],
            ["check", "-c", "a.yaml", "--config=b.yaml"],
            ["check", "--config", ""],
            ["check", "--config="],
            ["check", "--config", "--state"],
            ["check", "--config", "-"],
            ["check", "--shard", "3/3"],
            ["check", "--shard", "one/two"],
            ["check", "--no-such-option", "x"],
            ["check", "-c=a.yaml"],
            ["check", "-ca.yaml"],
            ["check", "--", "a.yaml"],
            ["check", "positional", "word"],
            ["check", "--CONFIG", "a.yaml"],
        ]
        for arguments in declined {
            XCTAssertNil(CheckCommandLine.plain(arguments), "\(arguments) must go to ArgumentParser")
        }
    }

    func testSnapshotLinesInAMachineFormatAreRead() {
        XCTAssertEqual(
            SnapshotCommandLine.plain(["snapshot", "--format", "json", "--config", "a.yaml", "--state", "off"]),
            SnapshotCommandLine(format: .json, config: "a.yaml", state: "off"))
        XCTAssertEqual(
            SnapshotCommandLine.plain(["snapshot", "-c", "a.yaml", "--format=prometheus", "--shard", "0/2"]),
            SnapshotCommandLine(format: .prometheus, config: "a.yaml", shard: "0/2"))
        let declined: [[String]] = [
            ["snapshot"],
            ["snapshot", "--config", "a.yaml"],
            ["snapshot", "--format", "text"],
            ["snapshot", "--format", "ansi", "--theme", "mono"],
            ["snapshot", "--format", "json", "--width", "80"],
            ["snapshot", "--format", "json", "--format", "json"],
            ["snapshot", "--format", "JSON"],
            ["snapshot", "--format", "json", "--client", "x"],
            ["snapshot", "--format", "json", "--shard", "2/2"],
            ["snapshot", "--format", "json", "--help"],
            ["check", "--format", "json"],
        ]
        for arguments in declined {
            XCTAssertNil(SnapshotCommandLine.plain(arguments), "\(arguments) must go to ArgumentParser")
        }
    }
}
