import Foundation

@testable import PinwatchCore

/// A Let's Encrypt-shaped catalogue built from small integer keys: roots
/// X1 (30, in the system store) and X2 (31, cross-signed by X1, in no
/// store, as on Android 13), RSA pool R10–R14 (10–14) under X1, ECDSA pool
/// E5–E9 (15–19) under X2, served with X2's cross-sign; an announced
/// generation Y (YR 40 with YR1–YR3 41–43, YE 44 with YE1 45), served with
/// YR's cross-sign by X1 and YE's by X2; another family GTS (root 50 in the
/// store, WR1 51, WE1 52) and a provider `cdn` drawing from both.
enum CatalogueFixtures {
    typealias F = Fixtures

    static func facts(_ name: String, key: UInt8, issuer: String, type: String = "RSA 2048", selfSigned: Bool = false) -> CertificateFacts {
        CertificateFacts(
            subject: "CN=\(name),O=Test CA", issuer: "CN=\(issuer),O=Test CA", notBefore: F.now.addingTimeInterval(-100 * F.day),
            notAfter: F.now.addingTimeInterval(1000 * F.day), keyDescription: type, spkiSHA256: F.digest(key),
            keySHA256: F.digest(key &+ 100), certSHA256: F.digest(key &+ 200), isCA: true, isSelfSigned: selfSigned)
    }

    static func root(_ name: String, key: UInt8, type: String = "RSA 4096", inStore: Bool = true) -> CatalogueCertificate {
        var root = CatalogueCertificate(
            name: name, facts: facts(name, key: key, issuer: name, type: type, selfSigned: true), file: "\(name).pem")
        root.inSystemStore = inStore
        return root
    }

    static func crossSign(_ name: String, key: UInt8, by issuer: String, type: String = "RSA 4096") -> CatalogueCertificate {
        CatalogueCertificate(name: name, facts: facts(name, key: key, issuer: issuer, type: type), file: "\(name)-by-\(issuer).pem")
    }

    static func intermediate(
        _ name: String, key: UInt8, root: String, type: String = "RSA 2048", state: CatalogueIntermediate.State = .active,
        servedWith: [CatalogueCertificate] = []
    ) -> CatalogueIntermediate {
        CatalogueIntermediate(
            certificate: CatalogueCertificate(name: name, facts: facts(name, key: key, issuer: root, type: type), file: "\(name).pem"),
            state: state, root: root, servedWith: servedWith)
    }

    static let x1 = root("X1", key: 30)
    static let x2 = root("X2", key: 31, type: "ECDSA P-384", inStore: false)
    /// X2's key, signed by X1.
    static let x2ByX1 = crossSign("X2", key: 31, by: "X1", type: "ECDSA P-384")
    static let rsaPool = (10...14).map { intermediate("R\($0)", key: UInt8($0), root: "X1") }
    static let ecdsaPool = (5...9).map {
        intermediate("E\($0)", key: UInt8($0 + 10), root: "X2", type: "ECDSA P-384", servedWith: [x2ByX1])
    }
    static let transitionDate = F.now.addingTimeInterval(90 * F.day)
    static let yrByX1 = crossSign("YR", key: 40, by: "X1")
    static let yeByX2 = crossSign("YE", key: 44, by: "X2", type: "ECDSA P-384")
    static let generationY = CatalogueTransition(
        name: "Generation Y", effective: transitionDate,
        roots: [root("YR", key: 40, inStore: false), root("YE", key: 44, type: "ECDSA P-384", inStore: false)],
        intermediates: (1...3).map { intermediate("YR\($0)", key: UInt8(40 + $0), root: "YR", servedWith: [yrByX1]) }
            + [intermediate("YE1", key: 45, root: "YE", type: "ECDSA P-384", servedWith: [yeByX2, x2ByX1])],
        source: "https://example.test/generation-y")

    static func letsEncrypt(
        pool: Bool = true, transitions: [CatalogueTransition] = []
    ) -> CatalogueFamily {
        CatalogueFamily(
            name: "le", displayName: "Test Encrypt", roots: [x1, x2], crossSigns: [x2ByX1],
            intermediates: pool ? rsaPool + ecdsaPool : [rsaPool[0], ecdsaPool[0]], transitions: transitions, origin: "test")
    }

    static let gts = CatalogueFamily(
        name: "gts", displayName: "Test Trust Services", roots: [root("GTS R1", key: 50)],
        intermediates: [intermediate("WR1", key: 51, root: "GTS R1"), intermediate("WE1", key: 52, root: "GTS R1", type: "ECDSA P-256")],
        origin: "test")

    static let cdn = CatalogueProvider(name: "cdn", displayName: "Test CDN", families: ["le", "gts"], source: "test")

    enum Knowledge: String, CaseIterable {
        case knownPool = "known pool"
        case singleIntermediate = "single intermediate"
        case unknownCA = "unknown CA"
        case announcedTransition = "announced transition"
        case provider = "provider with several families"

        var catalogue: Catalogue {
            switch self {
            case .knownPool: return Catalogue(families: [letsEncrypt()])
            case .singleIntermediate: return Catalogue(families: [letsEncrypt(pool: false)])
            case .unknownCA: return .empty
            case .announcedTransition: return Catalogue(families: [letsEncrypt(transitions: [generationY])])
            case .provider: return Catalogue(families: [letsEncrypt(), gts], providers: [cdn])
            }
        }

        var provider: String? { self == .provider ? "cdn" : nil }
    }

    /// leaf (key 1) ← R10 ← X1 from the store.
    static var rsaChain: [ChainCertificate] {
        [
            ChainCertificate(facts: facts("api.example.com", key: 1, issuer: "R10", type: "RSA 2048"), fromServer: true),
            ChainCertificate(facts: rsaPool[0].certificate.facts, fromServer: true),
            ChainCertificate(facts: x1.facts, fromServer: false),
        ]
    }

    /// leaf (key 2) ← E5 ← X2 cross-signed by X1 ← X1 from the store.
    static var crossSignedChain: [ChainCertificate] {
        [
            ChainCertificate(facts: facts("api.example.com", key: 2, issuer: "E5", type: "ECDSA P-256"), fromServer: true),
            ChainCertificate(facts: ecdsaPool[0].certificate.facts, fromServer: true),
            ChainCertificate(facts: x2ByX1.facts, fromServer: true),
            ChainCertificate(facts: x1.facts, fromServer: false),
        ]
    }

    static func report(pins: PinSet, chain: [ChainCertificate], knowledge: Knowledge) -> HostReport {
        var host = HostConfig(host: "api.example.com", pins: pins)
        host.provider = knowledge.provider
        return Verdict.report(
            for: host, result: F.result(chain: chain), now: F.now, warnDays: 21, criticalDays: 7, catalogue: knowledge.catalogue)
    }
}
