import Foundation
import XCTest

@testable import PinwatchSystem

final class ProcessEnvironmentTests: XCTestCase {
    /// Read from `environ` directly, it must say what Foundation says.
    func testItHoldsWhatFoundationReads() {
        setenv("PINWATCH_ENVIRONMENT_TEST", "a=b c", 1)
        defer { unsetenv("PINWATCH_ENVIRONMENT_TEST") }
        let read = ProcessEnvironment.read()
        XCTAssertEqual(read["PINWATCH_ENVIRONMENT_TEST"], "a=b c", "only the first = separates name and value")
        XCTAssertEqual(read, ProcessInfo.processInfo.environment)
        XCTAssertFalse(read.isEmpty)
    }
}

final class LoginNameTests: XCTestCase {
    func testTheVariablesComeFirstThenThePasswordEntry() {
        XCTAssertEqual(LoginName.resolve(environment: ["USER": "ana", "LOGNAME": "root"]) { "passwd" }, "ana")
        XCTAssertEqual(LoginName.resolve(environment: ["USER": "", "LOGNAME": "bo"]) { "passwd" }, "bo")
        XCTAssertEqual(LoginName.resolve(environment: [:]) { "svc-pinwatch" }, "svc-pinwatch", "without USER, the passwd entry")
        XCTAssertNil(LoginName.resolve(environment: [:]) { nil }, "a uid without an entry: no name rather than an empty one")
    }

    /// The real lookup agrees with `id -un` for this process's user, and
    /// like it finds nothing for a uid without an entry (a container's).
    func testThePasswordEntryIsTheEffectiveUsers() throws {
        let id = Process()
        id.executableURL = URL(fileURLWithPath: "/usr/bin/id")
        id.arguments = ["-un"]
        let output = Pipe()
        id.standardOutput = output
        try id.run()
        let name = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        id.waitUntilExit()
        XCTAssertEqual(LoginName.effectiveUserEntry(), id.terminationStatus == 0 ? name : nil)
    }
}
