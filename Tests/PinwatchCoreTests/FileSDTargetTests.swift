import XCTest

@testable import PinwatchCore

/// A file_sd target is read as `host:` and the command line read a
/// host[:port] (`HostPort`): the same name rules, the port named when it is
/// the wrong part, and the number of hosts bounded before entries are built.
final class FileSDTargetTests: XCTestCase {
    /// The configuration `file_sd: targets.json` with `targets` as that
    /// file's one group, read from memory through the loader's injected reader.
    private func problems(targets: [String], file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        let quoted = targets.map { "\"\($0)\"" }.joined(separator: ", ")
        let files = ["/conf/targets.json": "[{\"targets\": [\(quoted)]}]"]
        let loader = ConfigLoader(
            certificateDigests: { _ in [] },
            readText: { path, _ throws(RegularFile.ReadError) in
                guard let text = files[path] else { throw RegularFile.ReadError(path: path, reason: RegularFile.noSuchFile) }
                return text
            })
        do {
            let config = try loader.load(yaml: "file_sd: targets.json\n", path: "/conf/pinwatch.yaml")
            XCTFail("loaded \(config.hosts.map(\.displayName))", file: file, line: line)
            return []
        } catch {
            return error.problems
        }
    }

    private func message(of target: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let found = problems(targets: [target], file: file, line: line)
        XCTAssertEqual(found.count, 1, "\(found)", file: file, line: line)
        XCTAssertEqual(found.first?.file, "/conf/targets.json", file: file, line: line)
        return found.first?.message ?? ""
    }

    func testAPortWithASignOrALeadingZeroIsNamedAsThePortsProblem() {
        XCTAssertEqual(
            message(of: "a.test:+443"),
            "\"a.test:+443\": the port \"+443\" must be a number from 1 to 65535 (digits only, no sign or leading zero)")
        XCTAssertEqual(
            message(of: "a.test:0443"),
            "\"a.test:0443\": the port \"0443\" must be a number from 1 to 65535 (digits only, no sign or leading zero)")
        for target in ["a.test:99999", "a.test:", "a.test:https"] {
            let text = message(of: target)
            XCTAssertTrue(text.contains("the port"), text)
            XCTAssertFalse(text.contains("IPv6"), "a bad port is not a misplaced colon: \(text)")
        }
    }

    func testNamesAResolverWouldGuessAtAreRefusedWithTheirFault() {
        XCTAssertEqual(message(of: "."), "\".\" is not a host name: it has an empty label (a dot at the start or two in a row)")
        XCTAssertEqual(
            message(of: "a..test"), "\"a..test\" is not a host name: it has an empty label (a dot at the start or two in a row)")
        XCTAssertEqual(message(of: "-a.test"), "\"-a.test\" is not a host name: its label \"-a\" starts or ends with '-'")
        XCTAssertEqual(
            message(of: "1.2.3.4.5"),
            "\"1.2.3.4.5\" is neither an IPv4 address (four numbers from 0 to 255) nor a host name (its last label is all digits)")
        XCTAssertTrue(message(of: "a-.test:8443").contains("its label \"a-\" starts or ends with '-'"))
    }

    func testWellFormedTargetsStillLoad() throws {
        let files = [
            "/conf/targets.json":
                #"[{"targets": ["a.test:8443", "b.test.", "_srv.c.test", "192.0.2.1:443", "[2001:db8::1]:8443", "xn--bcher-kva.test"]}]"#
        ]
        let loader = ConfigLoader(
            certificateDigests: { _ in [] }, readText: { path, _ throws(RegularFile.ReadError) in files[path] ?? "" })
        let config = try loader.load(yaml: "file_sd: targets.json\n", path: "/conf/pinwatch.yaml")
        XCTAssertEqual(
            config.hosts.map(\.displayName),
            ["a.test:8443", "b.test.:443", "_srv.c.test:443", "192.0.2.1:443", "[2001:db8::1]:8443", "xn--bcher-kva.test:443"])
    }

    func testTheNumberOfTargetsIsBoundedBeforeAnyIsRead() {
        let found = problems(targets: (0...ConfigLimits.hosts).map { "h\($0).test" })
        XCTAssertEqual(found.count, 1, "one problem, not one per target: \(found.prefix(3))")
        XCTAssertEqual(
            found.first?.message,
            "20001 targets: one configuration watches at most 20000 hosts (hosts:, include: and file_sd: together)")
    }

    func testTheBoundCountsTheMainFilesHostsToo() {
        let files = ["/conf/targets.json": "[{\"targets\": [\((0..<10).map { "\"t\($0).test\"" }.joined(separator: ", "))]}]"]
        let loader = ConfigLoader(
            certificateDigests: { _ in [] }, readText: { path, _ throws(RegularFile.ReadError) in files[path] ?? "" })
        let main = "file_sd: targets.json\nhosts:\n" + (0..<(ConfigLimits.hosts - 5)).map { "  - host: m\($0).test\n" }.joined()
        XCTAssertThrowsError(try loader.load(yaml: main, path: "/conf/pinwatch.yaml")) { error in
            let problems = (error as? ConfigError)?.problems ?? []
            XCTAssertEqual(
                problems.map(\.message),
                [
                    "10 hosts (with 19995 from the files before): one configuration watches at most 20000 hosts "
                        + "(hosts:, include: and file_sd: together)"
                ])
        }
    }
}
