import Foundation

/// What each client release would do with a certificate logged in
/// Certificate Transparency for one of its names, before any server
/// sends it.
public struct CTLoggedVerdict: Hashable, Sendable {
    /// Releases whose pins are on the certificate's client path.
    public var survives: [String]
    /// Releases that would refuse it: no pin on the path, or no root of
    /// their store at its end.
    public var breaks: [String]

    public init(survives: [String] = [], breaks: [String] = []) {
        self.survives = survives
        self.breaks = breaks
    }
}

/// Judges a logged certificate by the client-path rule every pin verdict
/// uses (`ClientPath`): the logged chain completed by each release's
/// store, against the release's pins in force for the name. Nothing here
/// verifies a signature, so a precertificate (whose poison extension no
/// TLS library accepts) is judged by its names, key and issuers as the
/// certificate it announces will be.
package enum CTChainJudge {
    /// - Parameters:
    ///   - served: the logged leaf first, then the issuers the log holds
    ///     for it (issuer first).
    ///   - name: the watched name the certificate was logged for.
    ///   - store: the store a release without its own `trust_store:` is
    ///     judged with (the host's).
    package static func judge(
        served: [CertificateFacts], name: String, clients: [ClientPolicy], store: TrustStore, now: Date
    ) -> CTLoggedVerdict {
        var verdict = CTLoggedVerdict()
        for client in clients where !client.leafPinsExpected {
            // A signed list pins leaves on purpose and is republished before
            // each renewal: a new leaf not in it yet is its normal course.
            let inForce = client.rules(for: name).filter { rule in rule.expiration.map { $0 > now } ?? true }
            let pins = inForce.flatMap(\.pins)
            guard !pins.isEmpty else { continue }
            let path = ClientPath.build(served: served, store: client.trustStore ?? store)
            if path.anchored, path.carrier(among: pins) != nil {
                verdict.survives.append(client.name)
            } else {
                verdict.breaks.append(client.name)
            }
        }
        return verdict
    }
}
