import Foundation
import PinwatchCore
import PinwatchProbe
import XCTest

@testable import PinwatchCatalogue

/// The built-in data: real files, embedded unchanged, every chain verified.
final class BuiltinCatalogueTests: XCTestCase {
    private func builtIn() throws -> Catalogue {
        try CatalogueLoader.load(sources: [], userFolder: nil, verifyBuiltIn: true)
    }

    func testEmbeddedDataIsTheCatalogueFolder() throws {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: RepositoryCatalogue.folder))
        var onDisk: [String: String] = [:]
        for case let relative as String in enumerator where relative.hasSuffix(".pem") || relative.hasSuffix(".yaml") {
            let text = try String(
                contentsOfFile: (RepositoryCatalogue.folder as NSString).appendingPathComponent(relative), encoding: .utf8)
            onDisk[relative] = text.hasSuffix("\n") ? String(text.dropLast()) : text
        }
        XCTAssertFalse(onDisk.isEmpty)
        XCTAssertEqual(
            Set(BuiltinCatalogueData.files.keys), Set(onDisk.keys), "run scripts/catalogue-embed after changing catalogue/")
        for (path, text) in onDisk {
            XCTAssertEqual(BuiltinCatalogueData.files[path], text, "\(path) differs: run scripts/catalogue-embed")
        }
    }

    /// The facts embedded beside the PEMs, which commands read instead of
    /// decoding the certificates, are what the probe's code computes from
    /// those PEMs: they cannot drift from the data.
    func testEmbeddedFactsAreTheFactsOfTheEmbeddedPEMs() throws {
        let pems = BuiltinCatalogueData.files.filter { $0.key.hasSuffix(".pem") }
        XCTAssertEqual(Set(BuiltinCatalogueData.certificateFacts.keys), Set(pems.keys), "run scripts/catalogue-embed")
        for (path, text) in pems {
            let decoded = try CertificateReader.certificates(in: Array((text + "\n").utf8), source: path)
            XCTAssertEqual(decoded.count, 1, path)
            XCTAssertEqual(
                BuiltinCatalogueData.certificateFacts[path], decoded.first?.facts, "\(path) differs: run scripts/catalogue-embed")
        }
    }

    /// A command's catalogue (embedded facts, no certificate decoded) is the
    /// one every certificate decoded and every signature checked gives.
    func testTheCatalogueFromEmbeddedFactsIsTheDecodedAndVerifiedOne() throws {
        XCTAssertEqual(try CatalogueLoader.load(sources: [], userFolder: nil), try builtIn())
    }

    func testEveryBuiltInFileParsesAndLetsEncryptIsComplete() throws {
        let catalogue = try builtIn()
        XCTAssertEqual(
            Set(catalogue.families.map(\.name)), ["letsencrypt", "gts", "amazon", "digicert", "sectigo", "sslcom", "globalsign"])
        let letsEncrypt = try XCTUnwrap(catalogue.family(named: "letsencrypt"))
        XCTAssertEqual(letsEncrypt.roots.map(\.name), ["ISRG Root X1", "ISRG Root X2"])
        XCTAssertEqual(letsEncrypt.crossSigns.map(\.name), ["ISRG Root X2", "E5", "E6", "E7", "E8", "E9", "Root YR", "Root YE"])
        // The cross-signs re-issued on 2026-05-13, not the revoked ones of September 2025.
        XCTAssertEqual(
            letsEncrypt.crossSigns.filter { !["E5", "E6", "E7", "E8", "E9"].contains($0.name) }.map { DateText.day($0.facts.notBefore) },
            ["2026-05-13", "2026-05-13", "2026-05-13"])
        XCTAssertEqual(
            letsEncrypt.intermediates.map(\.certificate.name), ["R10", "R11", "R12", "R13", "R14", "E5", "E6", "E7", "E8", "E9"])
        XCTAssertEqual(
            letsEncrypt.intermediates.filter { $0.certificate.keyFamily == .rsa }.map(\.root), Array(repeating: "ISRG Root X1", count: 5))
        let generationY = try XCTUnwrap(letsEncrypt.transitions.first)
        XCTAssertEqual(generationY.roots.map(\.name), ["Root YR", "Root YE"])
        XCTAssertEqual(generationY.intermediates.map(\.certificate.name), ["YR1", "YR2", "YR3", "YE1", "YE2", "YE3"])
        XCTAssertEqual(DateText.day(generationY.effective), "2026-05-13")
        // Dated states: the classic pool retired on 2026-07-08, Generation Y
        // issuing from YR1/YR2 (YE1/YE2), YR3 and YE3 on standby.
        let judged = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-08-21T00:00:00Z"))
        let before = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-07-07T00:00:00Z"))
        XCTAssertEqual(Set(letsEncrypt.intermediates.map { $0.state(on: judged) }), [.retired])
        XCTAssertEqual(Set(letsEncrypt.intermediates.map { $0.state(on: before) }), [.active])
        XCTAssertEqual(
            generationY.intermediates.map { $0.state(on: judged).rawValue }, ["active", "active", "standby", "active", "active", "standby"])
        XCTAssertEqual(
            generationY.intermediates.map { $0.servedWith.map(\.name) },
            Array(repeating: ["Root YR"], count: 3) + Array(repeating: ["Root YE"], count: 3))
        // E6 is served signed by ISRG Root X1 (the default chain).
        let e6 = try XCTUnwrap(letsEncrypt.intermediates.first { $0.certificate.name == "E6" })
        XCTAssertEqual(e6.servedChain.map(\.issuer), ["CN=ISRG Root X1,O=Internet Security Research Group,C=US"])
        XCTAssertEqual(letsEncrypt.lifetimes.map(\.days), [64, 45])
        XCTAssertEqual(letsEncrypt.lifetimes.map { DateText.day($0.from) }, ["2027-02-10", "2028-02-16"])
        XCTAssertEqual(letsEncrypt.retrieved.map(DateText.day), "2026-11-26")
        XCTAssertEqual(letsEncrypt.origin, "built-in")
        let cloudflare = try XCTUnwrap(catalogue.provider(named: "cloudflare"))
        XCTAssertTrue(Set(cloudflare.families).isSuperset(of: ["letsencrypt", "gts", "sslcom"]))
        XCTAssertEqual(catalogue.provider(named: "aws-acm")?.families, ["amazon"])
        let gts = try XCTUnwrap(catalogue.family(named: "gts"))
        XCTAssertEqual(gts.intermediates.map(\.certificate.name), ["WR1", "WR2", "WR3", "WR4", "WR5", "WE1", "WE2", "WE3", "WE4", "WE5"])
        // WE1 as servers send it: under GTS Root R4, not GlobalSign ECC Root CA - R4.
        XCTAssertEqual(gts.intermediates.first { $0.certificate.name == "WE1" }?.root, "GTS Root R4")
        XCTAssertEqual(gts.roots.last?.name, "GlobalSign ECC Root CA - R4")
        XCTAssertEqual(
            catalogue.family(named: "amazon")?.intermediates.map(\.certificate.name),
            (1...6).map { "Amazon RSA 2048 M0\($0)" } + (1...6).map { "Amazon ECDSA 256 M0\($0)" })
    }

    /// Independently of the loader's own check: the OpenSSL command line.
    func testEveryIntermediateAndCrossSignVerifiesAgainstItsRootWithOpenSSL() throws {
        var checked = 0
        for family in try builtIn().families {
            let anchors = family.roots + family.transitions.flatMap(\.roots)
            let pools = family.intermediates + family.transitions.flatMap(\.intermediates)
            for intermediate in pools {
                let root = try XCTUnwrap(anchors.first { $0.name == intermediate.root }, "\(intermediate.certificate.name)'s root")
                try assertVerifies(intermediate.certificate, by: root)
                checked += 1
            }
            for crossSign in family.crossSigns + family.transitions.flatMap(\.roots).filter({ !$0.facts.isSelfSigned }) {
                let verified = try family.roots.contains { root in try verifies(crossSign, by: root) }
                XCTAssertTrue(verified, "\(crossSign.name) is signed by none of \(family.name)'s roots")
                checked += 1
            }
        }
        // Let's Encrypt 10 + 6 + 8 cross-signs, Google Trust Services 10, Amazon 12.
        XCTAssertEqual(checked, 10 + 6 + 8 + 10 + 12)
    }

    func testEachRootIsInTheSystemStoreWhereTheDataSaysSo() throws {
        let store = try CertificateReader.certificates(inFile: "/etc/ssl/certs/ca-certificates.crt").map { $0.facts.certSHA256 }
        XCTAssertGreaterThan(store.count, 50)
        var inStore = 0
        for family in try builtIn().families {
            for root in family.roots + family.transitions.flatMap(\.roots) {
                let expected = try XCTUnwrap(root.inSystemStore, "\(root.name) must say whether it is in the system store")
                XCTAssertEqual(store.contains(root.facts.certSHA256), expected, "\(family.name): \(root.name) in_system_store")
                if expected { inStore += 1 }
            }
        }
        XCTAssertEqual(inStore, 2 + 5 + 4 + 5 + 4 + 2 + 6)
    }

    func testPinsEqualAnIndependentOpenSSLComputation() throws {
        let catalogue = try builtIn()
        let letsEncrypt = try XCTUnwrap(catalogue.family(named: "letsencrypt"))
        let picks =
            [letsEncrypt.roots[0], letsEncrypt.intermediates[0].certificate, letsEncrypt.intermediates[5].certificate]
            + [try XCTUnwrap(letsEncrypt.transitions.first?.intermediates.last?.certificate)]
            + [try XCTUnwrap(catalogue.family(named: "gts")?.roots.first)]
            + [try XCTUnwrap(catalogue.family(named: "amazon")?.intermediates.last?.certificate)]
        for certificate in picks {
            let path = Shell.quoted(RepositoryCatalogue.path(ofLabel: certificate.file))
            let run = try Shell.run(
                "openssl x509 -in \(path) -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64")
            XCTAssertEqual(run.status, 0)
            XCTAssertEqual(
                PinText.sha256(certificate.facts.spkiSHA256), "sha256/" + run.output.trimmingCharacters(in: .whitespacesAndNewlines),
                certificate.name)
        }
        // Well known: ISRG Root X1's pin, as published by pinning guides.
        XCTAssertEqual(PinText.sha256(letsEncrypt.roots[0].facts.spkiSHA256), "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=")
    }

    private func verifies(_ certificate: CatalogueCertificate, by root: CatalogueCertificate) throws -> Bool {
        let run = try Shell.run(
            "openssl verify -no-CApath -partial_chain -CAfile \(Shell.quoted(RepositoryCatalogue.path(ofLabel: root.file))) "
                + Shell.quoted(RepositoryCatalogue.path(ofLabel: certificate.file)))
        return run.status == 0
    }

    private func assertVerifies(_ certificate: CatalogueCertificate, by root: CatalogueCertificate, line: UInt = #line) throws {
        XCTAssertTrue(try verifies(certificate, by: root), "\(certificate.name) does not verify against \(root.name)", line: line)
    }
}
