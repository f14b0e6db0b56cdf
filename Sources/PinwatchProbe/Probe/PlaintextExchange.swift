/// A dialogue a probe holds before TLS (a proxy's, a STARTTLS server's):
/// bytes to write, and a verdict on each answer read.
protocol PlaintextExchange {
    var outgoing: [UInt8] { get }
    mutating func didSend(_ count: Int)
    mutating func receive(_ bytes: [UInt8]) -> ProxyExchange.Progress
}

extension ProxyExchange: PlaintextExchange {}
extension StartTLSExchange: PlaintextExchange {}
