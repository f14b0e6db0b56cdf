import Foundation
import XCTest

/// `pinwatch demo` keeps its PKI and servers inside the process: whichever
/// way it ends, no listening port and no file is left behind.
final class DashboardDemoCleanupTests: XCTestCase {
    func testQuitLeavesNoPortsOrFiles() throws {
        try runDemoAndEnd { session, _ in try session.send("q") }
    }

    func testSIGTERMLeavesNoPortsOrFiles() throws {
        try runDemoAndEnd { _, pid in XCTAssertEqual(kill(pid, SIGTERM), 0) }
    }

    /// Starts the demo in an empty folder with an empty HOME and TMPDIR,
    /// records the ports it listens on, ends it with `end`, then checks that
    /// those ports are closed and the folders are still empty.
    private func runDemoAndEnd(_ end: (TmuxSession, pid_t) throws -> Void, file: StaticString = #filePath, line: UInt = #line) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-demo-\(UUID().uuidString)")
        let home = root.appendingPathComponent("home")
        let temporary = root.appendingPathComponent("tmp")
        for folder in [home, temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: root) }

        let invocation = [PinwatchBinary.url.path, "demo", "--interval", "1s", "--no-bell"].map(TmuxSession.quote).joined(separator: " ")
        let command = "bash -c " + TmuxSession.quote("cd \(TmuxSession.quote(root.path)) && " + invocation + "; echo EXITED:$?; sleep 30")
        let session = try TmuxSession(
            command: command, columns: 120, rows: 30,
            environment: ["HOME": home.path, "TMPDIR": temporary.path, "XDG_CONFIG_HOME": home.path, "SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }

        try session.waitForScreen(timeout: 15) { $0.contains("payments.demo:") && $0.contains("last cycle") }
        let pid = try XCTUnwrap(try session.pinwatchProcess(), "pinwatch is running under the pane", file: file, line: line)
        let ports = ListeningSockets.ports(ownedBy: pid)
        XCTAssertGreaterThanOrEqual(ports.count, 10, "the demo's servers and proxy listen while it runs", file: file, line: line)

        try end(session, pid)
        let exited = try session.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(exited.contains("EXITED:"), exited, file: file, line: line)

        let stillListening = ports.intersection(ListeningSockets.allListeningPorts())
        XCTAssertTrue(stillListening.isEmpty, "ports left listening: \(stillListening.sorted())", file: file, line: line)
        let expected: [(URL, [String])] = [(root, ["home", "tmp"]), (home, []), (temporary, [])]
        for (folder, entries) in expected {
            let found = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            XCTAssertEqual(found, entries, "files left in \(folder.path)", file: file, line: line)
        }
    }
}

/// Reads listening TCP sockets from /proc: which ports a process holds open.
enum ListeningSockets {
    /// Ports of LISTEN sockets whose inode is among `pid`'s descriptors.
    static func ports(ownedBy pid: pid_t) -> Set<Int> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(
            descriptors.compactMap { descriptor -> String? in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        return Set(listening().filter { inodes.contains($0.inode) }.map(\.port))
    }

    static func allListeningPorts() -> Set<Int> {
        Set(listening().map(\.port))
    }

    /// `/proc/net/tcp` and `tcp6` rows in state 0A (LISTEN): local port and inode.
    private static func listening() -> [(port: Int, inode: String)] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { path -> [(port: Int, inode: String)] in
            // Read to the end: /proc files report size 0, and a one-shot read
            // stops after the first page (about 30 sockets), which a busy
            // machine (a benchmark's nginx farm) fills with sockets of others.
            let data = FileHandle(forReadingAtPath: path).map { handle in
                defer { try? handle.close() }
                return (try? handle.readToEnd()) ?? Data()
            }
            let text = String(decoding: data ?? Data(), as: UTF8.self)
            return text.split(separator: "\n").dropFirst().compactMap { row in
                let fields = row.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                    let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
                else { return nil }
                return (port, String(fields[9]))
            }
        }
    }
}
