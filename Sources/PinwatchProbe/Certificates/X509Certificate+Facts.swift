internal import COpenSSL
import Foundation
import PinwatchCore

extension X509Certificate {
    /// Everything the reports need from this certificate, computed once per call.
    ///
    /// A certificate can be damaged in ways OpenSSL tolerates at parse time
    /// (odd times, unknown key types); each field then gets a neutral value
    /// rather than failing the whole chain.
    package var facts: CertificateFacts {
        withPointer { x509 in
            let der = self.der
            return CertificateFacts(
                subject: X509NameText.oneLine(X509_get_subject_name(x509)),
                issuer: X509NameText.oneLine(X509_get_issuer_name(x509)),
                notBefore: ASN1TimeConversion.date(X509_get0_notBefore(x509)),
                notAfter: ASN1TimeConversion.date(X509_get0_notAfter(x509)),
                keyDescription: PublicKeyFacts.description(of: X509_get0_pubkey(x509)),
                spkiSHA256: PublicKeyFacts.spkiDigest(of: x509),
                keySHA256: PublicKeyFacts.rawKeyDigest(of: x509),
                certSHA256: SHA256Digest.of(der),
                subjectAltNames: SubjectAltNames.names(of: x509),
                isCA: (X509_get_extension_flags(x509) & UInt32(EXFLAG_CA)) != 0,
                // Self-issued only: the signature is checked by
                // `withSelfSignatureChecked()` where the chain role needs it
                // (ChainCollector); a trust anchor's costs a verification
                // that changes nothing, a fifth of a millisecond per `check`.
                isSelfSigned: X509_self_signed(x509, 0) == 1,
                spkiSHA1: PublicKeyFacts.spkiDigest(of: x509, sha1: true)
            )
        }
    }
}

extension X509Certificate {
    /// The subjectAltName entries alone, for a caller that reads many
    /// certificates only for their names (a Certificate Transparency
    /// log's entries), without the digests `facts` computes.
    package var subjectAltNames: [String] {
        withPointer { SubjectAltNames.names(of: $0) }
    }

    /// The serial number in upper-case hex, as certspotter and crt.sh
    /// show it; "" when it cannot be read.
    package var serialHex: String {
        withPointer { x509 in
            defer { _ = OpenSSLErrorQueue.drainCodes() }
            guard let number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x509), nil) else { return "" }
            defer { BN_free(number) }
            guard let text = BN_bn2hex(number) else { return "" }
            defer { pinwatch_OPENSSL_free(text) }
            return String(cString: text)
        }
    }
}

extension CertificateFacts {
    /// `isSelfSigned` with the certificate's own signature verified, for a
    /// level whose role it decides (an untrusted chain's top, say).
    func withSelfSignatureChecked(_ certificate: X509Certificate) -> CertificateFacts {
        guard isSelfSigned else { return self }
        var checked = self
        checked.isSelfSigned = certificate.withPointer { X509_self_signed($0, 1) } == 1
        return checked
    }
}
