import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe

/// A site holding an ECDSA and an RSA certificate for one name, as public
/// CAs issue them: one root, and each key type's leaf under an
/// intermediate of its own (Let's Encrypt's E- and R-series).
package struct DualKeyTypePKI {
    package let root: CertificateAuthority
    /// Intermediate A: issues the ECDSA leaf.
    package let ecdsaIssuer: CertificateAuthority
    /// Intermediate B: an RSA key, issuing the RSA leaf.
    package let rsaIssuer: CertificateAuthority
    /// Leaf + its intermediate, as the server sends them.
    package let ecdsa: Identity
    package let rsa: Identity

    package init(serverName: String = "api.test", name: String = "Pinwatch Dual") throws {
        root = try CertificateAuthority.makeRoot(commonName: "\(name) Root", organization: "Pinwatch Tests")
        ecdsaIssuer = try root.issueIntermediate(commonName: "\(name) E1", organization: "Pinwatch Tests")
        rsaIssuer = try root.issueIntermediate(
            commonName: "\(name) R1", organization: "Pinwatch Tests", key: try PrivateKey.rsa(bits: 2048))
        let ecdsaLeaf = try ecdsaIssuer.issueLeaf(
            commonName: serverName, dnsNames: [serverName], ipAddresses: ["127.0.0.1"], key: try PrivateKey.ecdsa(.p256))
        let rsaLeaf = try rsaIssuer.issueLeaf(
            commonName: serverName, dnsNames: [serverName], ipAddresses: ["127.0.0.1"], key: try PrivateKey.rsa(bits: 2048))
        ecdsa = Identity(leaf: ecdsaLeaf, intermediates: [ecdsaIssuer.certificate])
        rsa = Identity(leaf: rsaLeaf, intermediates: [rsaIssuer.certificate])
    }

    package var trust: TrustSource { .pem(root.certificate.pem) }
}
