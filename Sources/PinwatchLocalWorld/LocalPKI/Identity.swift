import Foundation
import PinwatchProbe

/// A certificate together with its private key, as an issuer returns it.
package struct IssuedCertificate: Sendable {
    package let certificate: X509Certificate
    package let key: PrivateKey

    package init(certificate: X509Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }
}

/// What a TLS server presents: the chain it sends and the leaf's key.
///
/// `chain` is leaf first, in the order served; the root is normally left
/// out, as real servers do, so that clients must complete the chain from
/// their own trust store.
package struct Identity: Sendable {
    package let chain: [X509Certificate]
    package let key: PrivateKey

    package init(chain: [X509Certificate], key: PrivateKey) {
        self.chain = chain
        self.key = key
    }

    /// The leaf followed by the intermediates to send.
    package init(leaf: IssuedCertificate, intermediates: [X509Certificate] = []) {
        self.init(chain: [leaf.certificate] + intermediates, key: leaf.key)
    }
}
