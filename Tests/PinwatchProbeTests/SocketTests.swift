import Foundation
import Glibc
import PinwatchProbe
import PinwatchTestSupport
import XCTest

final class SocketTests: XCTestCase {
    private func loopback(_ port: Int) throws -> SocketAddress {
        try XCTUnwrap(SocketAddress.numeric("127.0.0.1", port: port))
    }

    /// Waits for `events` on `socket`, at most five seconds.
    private func ready(_ socket: Socket, for events: Int16) -> Bool {
        var entry = pollfd(fd: socket.descriptor, events: events, revents: 0)
        return poll(&entry, 1, 5_000) == 1
    }

    /// A listener, a client connected to it and the accepted end.
    private func connectedPair() throws -> (listener: Socket, client: Socket, server: Socket) {
        let (listener, port) = try Socket.listen(backlog: 4)
        let dialling = try Socket.connecting(to: loopback(port))
        XCTAssertTrue(ready(listener, for: Int16(POLLIN)), "the connection reaches the listener")
        let server = try XCTUnwrap(listener.accept())
        XCTAssertTrue(ready(dialling.socket, for: Int16(POLLOUT)))
        XCTAssertEqual(dialling.socket.pendingError, 0)
        XCTAssertTrue(dialling.socket.hasPeer)
        return (listener, dialling.socket, server)
    }

    func testConnectToAClosedPortEndsWithRefusedInPendingError() throws {
        let address = try loopback(LocalPorts.closedPort())
        do {
            let dialling = try Socket.connecting(to: address)
            defer { dialling.socket.close() }
            XCTAssertEqual(dialling.start, .inProgress)
            XCTAssertTrue(ready(dialling.socket, for: Int16(POLLOUT)))
            XCTAssertEqual(dialling.socket.pendingError, ECONNREFUSED)
            XCTAssertFalse(dialling.socket.hasPeer)
        } catch {
            // Loopback may refuse within connect itself.
            XCTAssertEqual(error.code, ECONNREFUSED)
        }
    }

    /// A hook or tmux started while a local server runs must not inherit
    /// its connections, and one slow client must not block the loop.
    func testEverySocketIsNonBlockingAndCloseOnExec() throws {
        let (listener, client, server) = try connectedPair()
        defer { [listener, client, server].forEach { $0.close() } }
        for socket in [listener, client, server] {
            XCTAssertNotEqual(fcntl(socket.descriptor, F_GETFL) & O_NONBLOCK, 0, "O_NONBLOCK on \(socket.descriptor)")
            XCTAssertNotEqual(fcntl(socket.descriptor, F_GETFD) & FD_CLOEXEC, 0, "FD_CLOEXEC on \(socket.descriptor)")
        }
    }

    func testBytesHalfCloseAndEndOfStream() throws {
        let (listener, client, server) = try connectedPair()
        defer { [listener, client, server].forEach { $0.close() } }
        var buffer = [UInt8](repeating: 0, count: 64)
        XCTAssertEqual(server.read(into: &buffer), .wouldBlock)

        XCTAssertEqual(client.write(Array("hello".utf8)), .bytes(5))
        client.shutdownWrites()
        XCTAssertTrue(ready(server, for: Int16(POLLIN)))
        XCTAssertEqual(server.read(into: &buffer), .bytes(5))
        XCTAssertEqual(Array(buffer.prefix(5)), Array("hello".utf8))
        XCTAssertTrue(ready(server, for: Int16(POLLIN)))
        XCTAssertEqual(server.read(into: &buffer), .endOfStream)

        // Half-closed: the other direction still carries bytes.
        XCTAssertEqual(server.write(Array("bye".utf8)), .bytes(3))
        XCTAssertTrue(ready(client, for: Int16(POLLIN)))
        XCTAssertEqual(client.read(into: &buffer), .bytes(3))
    }

    /// Writing to a peer that is gone fails with an errno value; a SIGPIPE
    /// would end this test process instead.
    func testWritingToAClosedPeerFailsWithoutASignal() throws {
        let (listener, client, server) = try connectedPair()
        defer { [listener, client].forEach { $0.close() } }
        server.close()
        let block = [UInt8](repeating: 0x41, count: 64 * 1024)
        var outcome = Socket.WriteResult.bytes(0)
        for _ in 0..<1_000 {
            outcome = client.write(block)
            if case .failed = outcome { break }
            if outcome == .wouldBlock { _ = ready(client, for: Int16(POLLOUT)) }
        }
        guard case .failed(let code) = outcome else { return XCTFail("still writable after the peer closed: \(outcome)") }
        XCTAssertTrue([EPIPE, ECONNRESET].contains(code), "errno \(code)")
    }
}
