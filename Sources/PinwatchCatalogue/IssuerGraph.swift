import Foundation
import PinwatchCore
import PinwatchProbe

/// Who signed whom among a set of CA certificates, decided by signatures
/// (a candidate issuer is any certificate whose subject is the issuer
/// name; it is an issuer only if its key verifies the signature), never by
/// names alone.
package struct IssuerGraph {
    package struct Node {
        package var certificate: X509Certificate
        package var facts: CertificateFacts
        /// Indices of the certificates whose key verified this one's signature.
        package var issuers: [Int]
    }

    package private(set) var nodes: [Node]

    package init(_ certificates: [X509Certificate]) {
        let facts = certificates.map(\.facts)
        var bySubject: [String: [Int]] = [:]
        for (index, fact) in facts.enumerated() { bySubject[fact.subject, default: []].append(index) }
        nodes = certificates.indices.map { index in
            let candidates = bySubject[facts[index].issuer] ?? []
            // Certificates of one key verify the same signatures: one check per key.
            var verdictByKey: [[UInt8]: Bool] = [:]
            let issuers = candidates.filter { candidate in
                let key = facts[candidate].spkiSHA256
                if let known = verdictByKey[key] { return known }
                let verified = certificates[index].isSigned(by: certificates[candidate])
                verdictByKey[key] = verified
                return verified
            }
            return Node(certificate: certificates[index], facts: facts[index], issuers: issuers)
        }
    }

    /// Every certificate signed, directly or through others, by one of
    /// `keys` (SPKI SHA-256): intermediates and cross-signs alike, with
    /// certificates of those keys signed by others (a root's cross-sign).
    package func under(keys: Set<[UInt8]>) -> [Int] {
        var reached = keys
        var found = Set<Int>()
        var changed = true
        while changed {
            changed = false
            for (index, node) in nodes.enumerated() where !found.contains(index) {
                let signedByReached = node.issuers.contains { reached.contains(nodes[$0].facts.spkiSHA256) }
                let isReachedKey = keys.contains(node.facts.spkiSHA256)
                guard signedByReached || isReachedKey else { continue }
                found.insert(index)
                if !reached.contains(node.facts.spkiSHA256) { reached.insert(node.facts.spkiSHA256) }
                changed = true
            }
        }
        return found.sorted()
    }
}
