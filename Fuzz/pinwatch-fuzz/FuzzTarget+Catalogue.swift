import PinwatchCatalogue
import PinwatchCore

extension FuzzTarget {
    /// A family description (`$XDG_DATA_HOME/pinwatch/catalogue/*/family.yaml`)
    /// beside Let's Encrypt's real certificate files: problems are one
    /// clean line each, and an accepted family only names roots it holds.
    static func catalogueFamily(_ text: String) {
        let (family, problems) = CatalogueLoader.family(description: text, beside: "letsencrypt")
        for problem in problems {
            require(!containsControl(problem.description), "control byte in a catalogue problem: \(problem.description.debugDescription)")
        }
        guard let family else { return }
        require(problems.isEmpty, "a family accepted with problems")
        require(!family.roots.isEmpty, "a family without a root accepted")
        let names = Set(family.allCertificates.map(\.name))
        for intermediate in family.intermediates + family.transitions.flatMap(\.intermediates) {
            require(names.contains(intermediate.root), "\(intermediate.certificate.name) names a root the family lacks")
        }
    }
}
