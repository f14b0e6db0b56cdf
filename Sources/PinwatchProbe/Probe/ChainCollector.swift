internal import COpenSSL
import PinwatchCore

/// Reads what a finished handshake left in the `SSL`: the chain as sent,
/// the chain as built by the verifier, and the verdict.
enum ChainCollector {
    /// More levels than any real chain; a server sending more is refused.
    static let maximumSentCertificates = 32
    /// The deepest chain judged: a deeper one is refused whole, since a
    /// chain cut short would end on an intermediate taken for its root.
    static let maximumLevels = 16

    struct Outcome {
        var chain: [ChainCertificate]
        var sentCount: Int
        var trusted: Bool
        var trustError: String?
        /// A verified chain's levels whose CRLs can be looked up.
        var revocationSubjects: [RevocationSubject] = []
        /// The verified chain (else the chain as sent), for the stapled response.
        var certificates: [X509Certificate] = []
    }

    /// `revocation`: whether the target's CRLs will be looked up, so the
    /// chain's `revocationSubjects` are worth reading.
    static func collect(from ssl: OpaquePointer, issuerFacts: IssuerFactsCache, revocation: Bool) -> Result<Outcome, ProbeFailure> {
        collect(
            sent: certificates(in: SSL_get_peer_cert_chain(ssl)), built: certificates(in: SSL_get0_verified_chain(ssl)),
            verifyResult: SSL_get_verify_result(ssl), issuerFacts: issuerFacts, revocation: revocation)
    }

    /// The same from a verification run outside a handshake (`ServedChain`):
    /// what was sent, what the verifier built, and its result.
    static func collect(from storeContext: OpaquePointer, sent: [X509Certificate], issuerFacts: IssuerFactsCache)
        -> Result<Outcome, ProbeFailure>
    {
        collect(
            sent: sent, built: certificates(in: X509_STORE_CTX_get0_chain(storeContext)),
            verifyResult: Int(X509_STORE_CTX_get_error(storeContext)), issuerFacts: issuerFacts, revocation: false)
    }

    private static func collect(
        sent: [X509Certificate], built: [X509Certificate], verifyResult: Int, issuerFacts: IssuerFactsCache, revocation: Bool
    ) -> Result<Outcome, ProbeFailure> {
        guard !sent.isEmpty else {
            return .failure(ProbeFailure(kind: .noCertificate, message: "the server sent no certificate"))
        }
        guard sent.count <= maximumSentCertificates else {
            return .failure(
                ProbeFailure(
                    kind: .tls, message: "the server sent \(sent.count) certificates (more than \(maximumSentCertificates) is refused)"))
        }
        let levels = built.isEmpty ? sent : built
        guard levels.count <= maximumLevels else {
            return .failure(
                ProbeFailure(
                    kind: .tls,
                    message: "the chain is \(levels.count) certificates deep (more than \(maximumLevels) is refused: no real chain is)"))
        }
        let trusted = verifyResult == Int(X509_V_OK)
        // The role of the leaf and of a verified chain's anchor does not
        // depend on a self-signature (ChainRole.role).
        let trustAnchorLevel = trusted && !built.isEmpty ? built.count - 1 : nil
        let chain = levels.enumerated().map { level, certificate -> ChainCertificate in
            let fromServer = sent.contains { sentCertificate in
                sentCertificate.withPointer { sentPointer in certificate.withPointer { X509_cmp(sentPointer, $0) } } == 0
            }
            var facts = level == 0 ? certificate.facts : issuerFacts.facts(of: certificate)
            if level > 0 && level != trustAnchorLevel { facts = facts.withSelfSignatureChecked(certificate) }
            return ChainCertificate(facts: facts, fromServer: fromServer)
        }
        let trustError = trusted ? nil : String(cString: X509_verify_cert_error_string(verifyResult))
        // Only a verified chain's issuers are known to have signed what they
        // would vouch for: an unverified one has nobody whose CRL means anything.
        return .success(
            Outcome(
                chain: chain, sentCount: sent.count, trusted: trusted, trustError: trustError,
                revocationSubjects: trusted && revocation ? RevocationSubjects.subjects(of: levels) : [], certificates: levels))
    }

    /// Borrows every certificate of a stack the `SSL` owns, so the facts
    /// outlive nothing they depend on.
    private static func certificates(in stack: OpaquePointer?) -> [X509Certificate] {
        guard let stack else { return [] }
        return X509Stack.certificates(stack).map { X509Certificate(borrowing: $0) }
    }
}
