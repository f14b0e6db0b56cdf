import Foundation
import PinwatchCore
import PinwatchProbe

extension FuzzTarget {
    /// A server's side of a STARTTLS dialogue (`starttls:`): the first byte
    /// picks the protocol and the size of the pieces the rest arrives in.
    /// Whatever the server says, the dialogue ends within its byte bound and
    /// a failure is one bounded line free of control bytes.
    static func startTLSReply(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let protocols = StartTLSProtocol.allCases
        var exchange = StartTLSExchange(dialogue: protocols[Int(first) % protocols.count], serverName: "mail.example.com")
        exchange.didSend(exchange.outgoing.count)
        let piece = Int(first / 4 % 64) + 1
        var rest = bytes.dropFirst()
        var received = 0
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(piece))
            rest = rest.dropFirst(chunk.count)
            received += chunk.count
            switch exchange.receive(chunk) {
            case .needMore:
                require(received <= StartTLSExchange.maximumBytes, "a dialogue grows without bound")
            case .established:
                return
            case .failed(let reason):
                require(reason.hasPrefix("starttls: "), "a failure without its prefix: \(reason.debugDescription)")
                require(!containsControl(reason), "control byte in a failure: \(reason.debugDescription)")
                require(reason.count <= 600, "a failure of \(reason.count) characters")
                return
            }
            exchange.didSend(exchange.outgoing.count)
        }
    }
}
