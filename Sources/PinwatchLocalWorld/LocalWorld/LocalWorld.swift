import Foundation
import PinwatchCore
import PinwatchProbe

/// A PKI made in this process and the local servers that use it: the
/// demo's world and every test's.
///
/// Two roots, each with an issuing CA: `root` is the one the hosts are
/// pinned to, `otherRoot` stands for "moved to another CA". Both go into
/// `trustPEM`, so either is trusted and only the pins tell them apart.
/// Servers listen on 127.0.0.1 ephemeral ports and live until `stop()`.
package final class LocalWorld {
    package let root: CertificateAuthority
    package let issuing: CertificateAuthority
    package let otherRoot: CertificateAuthority
    package let otherIssuing: CertificateAuthority
    package private(set) var servers: [any LocalServer] = []

    package init(name: String, organization: String) throws {
        root = try CertificateAuthority.makeRoot(commonName: "\(name) Root R1", organization: organization)
        issuing = try root.issueIntermediate(commonName: "\(name) Issuing CA 1", organization: organization)
        otherRoot = try CertificateAuthority.makeRoot(commonName: "\(name) Other Root", organization: "Other CA")
        otherIssuing = try otherRoot.issueIntermediate(commonName: "\(name) Other Issuing CA", organization: "Other CA")
    }

    /// Both roots, as the trust store the hosts are checked against.
    package var trustPEM: String { root.certificate.pem + otherRoot.certificate.pem }

    /// A TLS server for `name` with a leaf from `issuer` (default: the
    /// issuing CA), sending the issuer too, as real servers do.
    @discardableResult
    package func serveLeaf(
        _ name: String, by issuer: CertificateAuthority? = nil, commonName: String? = nil, key: PrivateKey? = nil,
        validity: ValidityWindow = .lasting(days: 60), paddingBytes: Int = 0
    ) throws -> (server: LocalTLSServer, leaf: IssuedCertificate) {
        let authority = issuer ?? issuing
        let leaf = try authority.issueLeaf(
            commonName: commonName ?? name, dnsNames: [name], key: key, validity: validity, paddingBytes: paddingBytes)
        let server = try keep(LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [authority.certificate])))
        return (server, leaf)
    }

    /// Keeps a server alive until `stop()`.
    @discardableResult
    package func keep<Server: LocalServer>(_ server: Server) -> Server {
        servers.append(server)
        return server
    }

    /// A CA rotation, live: a new issuing CA under the same root, and the
    /// server's leaf re-issued under it with the same key. Trusted as
    /// before and the leaf pin still matches; a pin on the old issuing CA
    /// no longer does.
    @discardableResult
    package func rotateIntermediate(of server: LocalTLSServer, hostName: String, newIssuerName: String) throws -> CertificateAuthority {
        let next = try root.issueIntermediate(commonName: newIssuerName, organization: "Rotated")
        let leaf = try next.issueLeaf(
            commonName: hostName, dnsNames: [hostName], key: server.identity.key, validity: .lasting(days: 60))
        try server.replaceIdentity(Identity(leaf: leaf, intermediates: [next.certificate]))
        return next
    }

    package func stop() {
        servers.forEach { $0.stop() }
        servers.removeAll()
    }

    /// The `sha256/` pin of a certificate's public key.
    package static func spkiPin(_ certificate: X509Certificate) -> Pin {
        let digest = certificate.facts.spkiSHA256
        return Pin(kind: .spki, digest: digest, text: PinText.sha256(digest))
    }
}
