import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// An oversized handshake message is named for what it is: a
/// 16 MB ServerHello is no certificate message.
final class HandshakeMessageSizeTests: XCTestCase {
    private let engine = ProbeEngine(concurrency: 2)
    private static let expected =
        "TLS handshake failed: a handshake message from the server exceeds its size limit (256 KiB for the certificate list)"

    func testSixteenMegabyteServerHelloIsAHandshakeMessageTooLarge() throws {
        // One handshake record whose ServerHello header announces 16 MiB − 1.
        let record: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0xFF, 0xFF, 0xFF]
        let peer = try ScriptedPeer(.awaitBytes(1), .send(record))
        let result = engine.run([ProbeTarget(host: "127.0.0.1", port: peer.port, serverName: "api.test", timeout: 5)])[0]
        XCTAssertEqual(result.failure?.kind, .tls)
        XCTAssertEqual(result.failure?.message, Self.expected)
        XCTAssertEqual(peer.acceptedConnections, 1)
    }

    func testMegabyteCertificateListIsTheSameMessage() throws {
        let pki = try TestPKI()
        let server = try LocalTLSServer(identity: try pki.identity(paddingBytes: 1_000_000))
        let result = engine.run([.local(server, trust: pki.trust)])[0]
        XCTAssertEqual(result.failure?.message, Self.expected)
        XCTAssertEqual(server.acceptedConnections, 1)
    }
}
