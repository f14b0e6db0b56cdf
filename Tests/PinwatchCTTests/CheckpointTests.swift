import Foundation
import PinwatchCT
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTransfer
import XCTest

/// static-ct-api's checkpoint: the local log's tree head as a signed note,
/// read from the log's own signature line and verified with the log list's
/// key, as `get-sth` is.
final class CheckpointTests: XCTestCase {
    private func fetch(_ log: LocalCTLog) throws -> [UInt8] {
        let ending = BoundedTransfer(limit: Checkpoint.maximumSize, accept: "text/plain")
            .fetch(log.url.appendingPathComponent("checkpoint"), timeout: 10)
        guard case .answered(let body, 200) = ending else { throw CTFormatError("checkpoint: \(ending)") }
        return [UInt8](body)
    }

    func testTheCheckpointIsTheSignedTreeHeadOfGetSTH() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<5 { try fixture.logCertificate(["c\(index).example.test"]) }
        try fixture.log.publish()
        let description = try fixture.description()
        XCTAssertEqual(Checkpoint.origin(ofSubmissionURL: fixture.log.url), fixture.log.origin)
        let head = try Checkpoint.treeHead(try fetch(fixture.log), origin: fixture.log.origin, logID: description.logID)
        XCTAssertTrue(head.isSigned(byKey: description.key))
        guard case .rfc6962(let url) = description.interface else { return XCTFail("not an RFC 6962 log") }
        let sth = try RFC6962Client(baseURL: url).treeHead()
        XCTAssertEqual(head, sth)
        XCTAssertEqual(head.treeSize, 5)
    }

    func testABadSignatureIsRefusedAndForeignOrMalformedNotesAreNotRead() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["a.example.test"])
        try fixture.log.publish()
        let description = try fixture.description()
        let origin = fixture.log.origin
        fixture.log.tamper = .badSignature
        let tampered = try Checkpoint.treeHead(try fetch(fixture.log), origin: origin, logID: description.logID)
        XCTAssertFalse(tampered.isSigned(byKey: description.key))
        fixture.log.tamper = .none
        let note = String(decoding: try fetch(fixture.log), as: UTF8.self)
        let lines = note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        let cases: [(String, String)] = [
            (note.replacingOccurrences(of: origin, with: "elsewhere.example"), "origin"),
            (lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\nextension line\n\n" + lines[4] + "\n", "4 lines"),
            (lines[0] + "\n01\n" + lines[2] + "\n\n" + lines[4] + "\n", "tree size"),
            (lines[0] + "\n" + lines[1] + "\nAAAA\n\n" + lines[4] + "\n", "root hash"),
            // A witness's line only: no signature by the log.
            (lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n\n\u{2014} witness.example AAAAAAAAAAAAAAAAAAAA\n", "no signature line"),
            (lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n", "not a signed note"),
        ]
        for (text, problem) in cases {
            XCTAssertThrowsError(try Checkpoint.treeHead(Array(text.utf8), origin: origin, logID: description.logID), problem) {
                XCTAssertTrue("\($0)".contains(problem), "\($0)")
            }
        }
        // Another key's ID under the log's name is not the log's line.
        XCTAssertThrowsError(try Checkpoint.treeHead(Array(note.utf8), origin: origin, logID: [UInt8](repeating: 7, count: 32)))
        XCTAssertThrowsError(
            try Checkpoint.treeHead([UInt8](repeating: 0x41, count: Checkpoint.maximumSize + 1), origin: origin, logID: description.logID))
    }
}
