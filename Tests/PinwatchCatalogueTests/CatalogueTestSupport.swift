import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// A scratch folder, a local PKI written as PEM files, and `openssl` runs.
final class CatalogueScratch {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "pinwatch-catalogue-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let path = (folder as NSString).appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A root and `count` intermediates it signed, written as `root.pem`, `ca1.pem`…
    func pool(in relative: String, rootName: String, count: Int) throws -> (root: CertificateAuthority, cas: [CertificateAuthority]) {
        let root = try CertificateAuthority.makeRoot(commonName: rootName, organization: "Pinwatch Catalogue Test")
        try write("\(relative)/root.pem", root.certificate.pem)
        var cas: [CertificateAuthority] = []
        for index in 1...count {
            let ca = try root.issueIntermediate(commonName: "\(rootName) CA \(index)")
            try write("\(relative)/ca\(index).pem", ca.certificate.pem)
            cas.append(ca)
        }
        return (root, cas)
    }
}

/// The repository's catalogue/ folder, the source the binary embeds.
enum RepositoryCatalogue {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("catalogue").path

    /// A loader label (`built-in catalogue/letsencrypt/r10.pem`) as a path on disk.
    static func path(ofLabel label: String) -> String {
        let relative = label.replacingOccurrences(of: "built-in catalogue/", with: "")
        return (folder as NSString).appendingPathComponent(relative)
    }
}

enum Shell {
    /// Runs `/bin/sh -c script` under `timeout` (as ShellCommand does in
    /// the probe tests): stdout and the exit status.
    static func run(_ script: String, file: StaticString = #filePath, line: UInt = #line) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["30", "/bin/sh", "-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // timeout(1) exits 124 when it had to end the script.
        if process.terminationStatus == 124 { XCTFail("`\(script)` did not finish in 30 s", file: file, line: line) }
        return (String(decoding: output, as: UTF8.self), process.terminationStatus)
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
