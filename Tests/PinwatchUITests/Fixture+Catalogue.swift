import Foundation
import PinwatchCore

extension Fixture {
    /// A pool of five intermediates under the fixture chain's root (seeds
    /// 0, 40, 80): a host pinned to intermediate 40 meets the other four
    /// at its next rotation.
    static var poolCatalogue: Catalogue {
        // Seeds 0, 40, 80: the fixture chain before any pin decides the verdict.
        let chain = result(for: host("pool.example"), status: .blocked).chain.map(\.facts)
        let root = CatalogueCertificate(name: "Test Root", facts: chain[2], file: "root.pem")
        let pool =
            [CatalogueCertificate(name: "R10", facts: chain[1], file: "r10.pem")]
            + (1...4).map { index -> CatalogueCertificate in
                var facts = facts(subject: "CN=R1\(index)", daysLeft: 900, seed: UInt8(40 + index))
                facts.issuer = chain[2].subject
                return CatalogueCertificate(name: "R1\(index)", facts: facts, file: "r1\(index).pem")
            }
        return Catalogue(families: [
            CatalogueFamily(
                name: "test", displayName: "Test CA", roots: [root],
                intermediates: pool.map { CatalogueIntermediate(certificate: $0, state: .active, root: "Test Root") }, origin: "test")
        ])
    }
}
