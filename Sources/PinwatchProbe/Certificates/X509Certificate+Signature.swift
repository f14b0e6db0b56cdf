internal import COpenSSL

extension X509Certificate {
    /// Whether `issuer`'s key made this certificate's signature: the
    /// catalogue trusts an intermediate only once it verifies against the
    /// root it is declared under. Names and validity are not checked (a
    /// catalogue keeps certificates that expire).
    package func isSigned(by issuer: X509Certificate) -> Bool {
        withPointer { certificate in
            issuer.withPointer { issuerCertificate in
                guard let key = X509_get0_pubkey(issuerCertificate) else {
                    _ = OpenSSLErrorQueue.drain()
                    return false
                }
                let verified = X509_verify(certificate, key) == 1
                _ = OpenSSLErrorQueue.drain()
                return verified
            }
        }
    }
}
