import Foundation
import PinwatchLocalWorld

/// Prometheus' HTTP API as a hostile or broken server may play it, on
/// `ScriptedPeer`: the same script for every query.
package enum FakePrometheus {
    /// A request line and headers are far longer than this; the peer reads
    /// (and drops) the rest as it comes.
    private static let requestStarted = ScriptedPeer.Step.awaitBytes(16)

    /// An instant-query answer holding `result` (each `{"metric":…,"value":…}`).
    package static func answering(_ result: [[String: Any]]) throws -> ScriptedPeer {
        let json = try JSONSerialization.data(withJSONObject: [
            "status": "success", "data": ["resultType": "vector", "result": result],
        ])
        return try answering(body: [UInt8](json))
    }

    /// `body` with its length, then the connection closed.
    package static func answering(body: [UInt8], status: String = "200 OK", headers: [String] = []) throws -> ScriptedPeer {
        let head =
            (["HTTP/1.1 \(status)", "Content-Type: application/json", "Content-Length: \(body.count)", "Connection: close"]
            + headers).joined(separator: "\r\n") + "\r\n\r\n"
        return try ScriptedPeer(requestStarted, .send(Array(head.utf8) + body), .close)
    }

    /// A 200 with no length whose body never ends (64 KiB blocks of JSON
    /// whitespace, for as long as the client reads).
    package static func streamingForever(lifetime: TimeInterval = 30) throws -> ScriptedPeer {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"status\":\"success\",\"data\":"
        return try ScriptedPeer(
            [requestStarted, .send(Array(head.utf8)), .repeatForever([UInt8](repeating: UInt8(ascii: " "), count: 64 << 10))],
            lifetime: lifetime)
    }

    /// A 200 with no length whose body comes one byte every `interval`.
    package static func dripping(every interval: TimeInterval, lifetime: TimeInterval = 30) throws -> ScriptedPeer {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        return try ScriptedPeer(
            [requestStarted, .send(Array(head.utf8)), .trickle([UInt8](repeating: UInt8(ascii: " "), count: 4_096), every: interval)],
            lifetime: lifetime)
    }

    /// A sample as the API writes it.
    package static func sample(_ labels: [String: String], _ value: String) -> [String: Any] {
        ["metric": labels, "value": [1_800_000_000.5, value]]
    }
}
