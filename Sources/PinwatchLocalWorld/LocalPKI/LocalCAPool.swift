import Foundation
import PinwatchCore

/// A local CA family shaped like a public one: a root and a pool of
/// issuing intermediates it rotates among (Let's Encrypt's R10–R14), with
/// the catalogue entry that describes it, computed from the certificates.
package struct LocalCAPool: Sendable {
    package let root: CertificateAuthority
    package let intermediates: [CertificateAuthority]
    package let rootName: String
    package let intermediateNames: [String]

    package init(rootName: String, intermediateNames: [String], organization: String) throws {
        root = try CertificateAuthority.makeRoot(commonName: rootName, organization: organization)
        let root = self.root
        intermediates = try intermediateNames.map { try root.issueIntermediate(commonName: $0, organization: organization) }
        self.rootName = rootName
        self.intermediateNames = intermediateNames
    }

    /// The family as a catalogue holds it (every intermediate active).
    package func catalogueFamily(name: String, displayName: String, origin: String = "config") -> CatalogueFamily {
        let rootCertificate = CatalogueCertificate(name: rootName, facts: root.certificate.facts, file: "\(rootName).pem")
        let pool = zip(intermediateNames, intermediates).map { name, authority in
            CatalogueIntermediate(
                certificate: CatalogueCertificate(name: name, facts: authority.certificate.facts, file: "\(name).pem"), state: .active,
                root: rootName)
        }
        return CatalogueFamily(name: name, displayName: displayName, roots: [rootCertificate], intermediates: pool, origin: origin)
    }
}
