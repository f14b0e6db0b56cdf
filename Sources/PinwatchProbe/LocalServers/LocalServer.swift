/// What every local peer (TLS server, black hole, plaintext, proxy) offers,
/// so that a fleet of mixed peers is kept and stopped as one list.
public protocol LocalServer: AnyObject, Sendable {
    /// Always 127.0.0.1.
    var host: String { get }
    var port: Int { get }
    var acceptedConnections: Int { get }
    /// Connections whose client has not hung up yet.
    var openConnections: Int { get }
    /// Closes the listener and every connection; idempotent.
    func stop()
}

extension LocalTLSServer: LocalServer {}
extension BlackHoleServer: LocalServer {}
extension PlaintextServer: LocalServer {}
extension FloodServer: LocalServer {}
extension ConnectProxyServer: LocalServer {}
