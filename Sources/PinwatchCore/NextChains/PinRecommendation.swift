/// The smallest set of CA keys that puts a pin on every given path:
/// fewest pins first, then as many roots as possible (a root outlives its
/// intermediates). A minimum hitting set; the catalogue's paths are few and
/// dominated keys are dropped first, so an exact search stays small.
enum PinRecommendation {
    /// Beyond this many undominated keys the exact search is replaced by a
    /// greedy one (no real catalogue comes near it).
    static let exactSearchLimit = 16

    static func minimal(covering given: [NextChainPath]) -> [NextChainCertificate] {
        // A lone self-signed leaf has no CA key to recommend.
        let paths = given.filter { !$0.certificates.isEmpty }
        guard !paths.isEmpty else { return [] }
        var keys: [(certificate: NextChainCertificate, hits: Set<Int>)] = []
        for (index, path) in paths.enumerated() {
            for certificate in path.certificates {
                if let found = keys.firstIndex(where: { $0.certificate.facts.spkiSHA256 == certificate.facts.spkiSHA256 }) {
                    keys[found].hits.insert(index)
                    // A key seen as a root anywhere is recommended as one.
                    if certificate.isRoot { keys[found].certificate.isRoot = true }
                } else {
                    keys.append((certificate, [index]))
                }
            }
        }
        // A key whose paths another key (a root, or as much an intermediate)
        // also covers never makes a better recommendation.
        let candidates = keys.enumerated().filter { index, key in
            !keys.enumerated().contains { other, better in
                other != index && key.hits.isSubset(of: better.hits)
                    && (better.certificate.isRoot || !key.certificate.isRoot)
                    && (key.hits != better.hits || better.certificate.isRoot != key.certificate.isRoot || other < index)
            }
        }.map(\.element)
        let all = Set(paths.indices)
        guard candidates.count <= exactSearchLimit else { return greedy(candidates, covering: all) }
        for size in 1...candidates.count {
            var best: [Int]?
            var bestRoots = -1
            forEachCombination(of: candidates.count, size: size) { chosen in
                let covered = chosen.reduce(into: Set<Int>()) { $0.formUnion(candidates[$1].hits) }
                guard covered == all else { return }
                let roots = chosen.filter { candidates[$0].certificate.isRoot }.count
                if roots > bestRoots {
                    best = chosen
                    bestRoots = roots
                }
            }
            if let best { return best.map { candidates[$0].certificate } }
        }
        return candidates.map(\.certificate)
    }

    private static func greedy(
        _ candidates: [(certificate: NextChainCertificate, hits: Set<Int>)], covering all: Set<Int>
    ) -> [NextChainCertificate] {
        var uncovered = all
        var chosen: [NextChainCertificate] = []
        while !uncovered.isEmpty,
            let next = candidates.max(by: { $0.hits.intersection(uncovered).count < $1.hits.intersection(uncovered).count })
        {
            chosen.append(next.certificate)
            uncovered.subtract(next.hits)
        }
        return chosen
    }

    /// Every `size`-element subset of `0..<count`, in lexicographic order.
    private static func forEachCombination(of count: Int, size: Int, _ body: ([Int]) -> Void) {
        var chosen = Array(0..<size)
        while true {
            body(chosen)
            var position = size - 1
            while position >= 0 && chosen[position] == count - size + position { position -= 1 }
            if position < 0 { return }
            chosen[position] += 1
            for next in (position + 1)..<size { chosen[next] = chosen[next - 1] + 1 }
        }
    }
}
