import XCTest

@testable import PinwatchCore

/// DESIGN §10 (recommended pins): on random catalogues and random pins, the recommended pins
/// make every known next chain survive, and no smaller set (nor a set as
/// small with more roots) would.
final class PinRecommendationPropertyTests: XCTestCase {
    private typealias C = CatalogueFixtures

    /// SplitMix64: the same cases on every run, so a failure reproduces.
    private struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private struct World {
        var catalogue: Catalogue
        var chain: [ChainCertificate]
        var pins: PinSet
        var provider: String?
    }

    func testRecommendationIsMinimalAndSufficient() throws {
        var random = SeededGenerator(state: 26)
        var recommendedSomething = 0
        for trial in 0..<200 {
            let world = makeWorld(&random)
            let name = "trial \(trial)"
            let host = host(world)
            let report = Verdict.report(
                for: host, result: Fixtures.result(chain: world.chain), now: Fixtures.now, warnDays: 21, criticalDays: 7,
                catalogue: world.catalogue)
            let next = try XCTUnwrap(report.nextChains, name)
            let pins = world.pins.all
            let broken = next.chains.filter { $0.survives == false }.flatMap(\.paths).filter { $0.carrier(among: pins) == nil }
            XCTAssertEqual(broken.isEmpty, next.recommended.isEmpty, name)
            if !next.recommended.isEmpty { recommendedSomething += 1 }

            var fixedHost = host
            fixedHost.pins.ca += next.recommended.map { try! Pin.parse($0.pin) }
            let fixed = Verdict.report(
                for: fixedHost, result: Fixtures.result(chain: world.chain), now: Fixtures.now, warnDays: 21, criticalDays: 7,
                catalogue: world.catalogue)
            for chain in try XCTUnwrap(fixed.nextChains).chains where chain.survives != nil {
                XCTAssertEqual(chain.survives, true, "\(name): \(chain.scenario) via \(chain.via)")
            }

            // Brute force over every key on the broken paths.
            var keys: [NextChainCertificate] = []
            for certificate in broken.flatMap(\.certificates) {
                if let index = keys.firstIndex(where: { $0.facts.spkiSHA256 == certificate.facts.spkiSHA256 }) {
                    if certificate.isRoot { keys[index].isRoot = true }
                } else {
                    keys.append(certificate)
                }
            }
            func covers(_ chosen: [NextChainCertificate]) -> Bool {
                broken.allSatisfy { path in
                    path.certificates.contains { certificate in chosen.contains { $0.facts.spkiSHA256 == certificate.facts.spkiSHA256 } }
                }
            }
            let size = next.recommended.count
            for smaller in 0..<size {
                XCTAssertFalse(subsets(of: keys, size: smaller).contains(where: covers), "\(name): a set of \(smaller) suffices")
            }
            let bestRoots = subsets(of: keys, size: size).filter(covers).map { $0.filter(\.isRoot).count }.max() ?? 0
            XCTAssertEqual(next.recommended.filter(\.isRoot).count, bestRoots, "\(name): roots preferred")
        }
        // The generator must exercise the search, not only trivial cases.
        XCTAssertGreaterThan(recommendedSomething, 60)
    }

    private func host(_ world: World) -> HostConfig {
        var host = HostConfig(host: "api.example.com", pins: world.pins)
        host.provider = world.provider
        return host
    }

    private func subsets<T>(of items: [T], size: Int) -> [[T]] {
        guard size > 0 else { return [[]] }
        guard items.count >= size else { return [] }
        var result: [[T]] = []
        for (index, item) in items.enumerated() {
            for rest in subsets(of: Array(items[(index + 1)...]), size: size - 1) { result.append([item] + rest) }
        }
        return result
    }

    /// One to three families of one to three roots (some cross-signed),
    /// up to six intermediates of either key type in any state, up to two
    /// transitions; a provider over them half the time; pins on random
    /// catalogue keys and chain levels.
    private func makeWorld(_ random: inout SeededGenerator) -> World {
        var nextKey: UInt8 = 60
        func key() -> UInt8 {
            nextKey &+= 1
            return nextKey
        }
        let types = ["RSA 2048", "ECDSA P-256"]
        func family(_ index: Int) -> CatalogueFamily {
            let roots = (0..<Int.random(in: 1...3, using: &random)).map { C.root("F\(index)R\($0)", key: key()) }
            var crossSigns: [CatalogueCertificate] = []
            if roots.count > 1, Bool.random(using: &random) {
                let signed = roots[1]
                crossSigns.append(
                    CatalogueCertificate(
                        name: signed.name, facts: C.facts(signed.name, key: signed.facts.spkiSHA256[0], issuer: roots[0].name),
                        file: "cross.pem"))
            }
            func intermediates(count: Int, under roots: [CatalogueCertificate]) -> [CatalogueIntermediate] {
                (0..<count).map { number in
                    C.intermediate(
                        "F\(index)I\(nextKey)", key: key(), root: roots.randomElement(using: &random)!.name,
                        type: types.randomElement(using: &random)!,
                        state: [.active, .active, .standby, .retired].randomElement(using: &random)!)
                }
            }
            let transitions = (0..<Int.random(in: 0...2, using: &random)).map { number in
                let newRoots = (0..<Int.random(in: 1...2, using: &random)).map { C.root("F\(index)T\(number)R\($0)", key: key()) }
                return CatalogueTransition(
                    name: "T\(number)", effective: Fixtures.now, roots: newRoots,
                    intermediates: intermediates(count: Int.random(in: 0...3, using: &random), under: newRoots), source: "test")
            }
            return CatalogueFamily(
                name: "f\(index)", displayName: "Family \(index)", roots: roots, crossSigns: crossSigns,
                intermediates: intermediates(count: Int.random(in: 1...6, using: &random), under: roots), transitions: transitions,
                origin: "test")
        }
        let families = (0..<Int.random(in: 1...3, using: &random)).map(family)
        let provider = CatalogueProvider(name: "p", displayName: "Provider", families: families.map(\.name), source: "test")
        let served = families[0].intermediates.randomElement(using: &random)!
        let root = families[0].roots.first { $0.name == served.root }!
        let chain = [
            ChainCertificate(facts: C.facts("leaf", key: 1, issuer: served.certificate.name), fromServer: true),
            ChainCertificate(facts: served.certificate.facts, fromServer: true),
            ChainCertificate(facts: root.facts, fromServer: false),
        ]
        let everyKey = families.flatMap(\.allCertificates).map(\.facts.spkiSHA256) + [Fixtures.digest(1)]
        let pinned = everyKey.filter { _ in Int.random(in: 0..<6, using: &random) == 0 }
        let pins = pinned.isEmpty ? [Fixtures.digest(1)] : pinned
        return World(
            catalogue: Catalogue(families: families, providers: [provider]),
            chain: chain, pins: PinSet(auto: pins.map { Pin(kind: .spki, digest: $0, text: PinText.sha256($0)) }),
            provider: Bool.random(using: &random) ? "p" : nil)
    }
}
