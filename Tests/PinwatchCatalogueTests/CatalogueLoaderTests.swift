import Foundation
import PinwatchCatalogue
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchSystem
import XCTest

/// The user's families (`$XDG_DATA_HOME`, `catalogue:`) and every bad input
/// named with its file and line.
final class CatalogueLoaderTests: XCTestCase {
    private func loader(userFolder: String?) -> ConfigLoader {
        ConfigLoader(
            certificateDigests: { try CertificateReader.certificateDigests(inFile: $0) },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) },
            catalogueBuilder: { sources throws(ConfigError) in try CatalogueLoader.load(sources: sources, userFolder: userFolder) })
    }

    private func problems(_ body: () throws -> Void) -> [ConfigProblem] {
        do {
            try body()
            XCTFail("expected the load to fail")
            return []
        } catch let error as ConfigError {
            return error.problems
        } catch {
            XCTFail("unexpected \(error)")
            return []
        }
    }

    func testUserFamilyReplacesTheBuiltInFamilyOfTheSameName() throws {
        let scratch = try CatalogueScratch()
        let (root, cas) = try scratch.pool(in: "letsencrypt", rootName: "Newer Data Root", count: 2)
        try scratch.write(
            "letsencrypt/family.yaml",
            """
            name: letsencrypt
            display_name: Let's Encrypt (newer data)
            retrieved: 2027-01-05
            roots:
              - file: root.pem
            intermediates:
              - {file: ca1.pem, state: active, root: root.pem}
              - {file: ca2.pem, state: standby, root: root.pem}
            """)
        let catalogue = try CatalogueLoader.load(sources: [], userFolder: scratch.folder)
        let family = try XCTUnwrap(catalogue.family(named: "letsencrypt"))
        XCTAssertEqual(family.origin, "user")
        XCTAssertEqual(family.roots.map(\.facts.certSHA256), [root.certificate.facts.certSHA256])
        XCTAssertEqual(family.intermediates.map(\.certificate.facts.spkiSHA256), cas.map(\.certificate.facts.spkiSHA256))
        XCTAssertEqual(family.intermediates.map(\.state), [.active, .standby])
        XCTAssertEqual(catalogue.families.filter { $0.name == "letsencrypt" }.count, 1)
        XCTAssertEqual(catalogue.family(named: "gts")?.origin, "built-in", "other families stay")
        XCTAssertNotNil(catalogue.provider(named: "cloudflare"), "providers still name the replaced family")
    }

    func testCatalogueKeyLoadsALocalPKIPool() throws {
        let scratch = try CatalogueScratch()
        let (root, cas) = try scratch.pool(in: "pki", rootName: "Corp Root", count: 5)
        let config = try scratch.write(
            "pinwatch.yaml",
            """
            catalogue:
              - name: corp
                roots: [pki/root.pem]
                intermediates: [pki/ca1.pem, pki/ca2.pem, pki/ca3.pem, pki/ca4.pem, pki/ca5.pem]
            """)
        let loaded = try loader(userFolder: nil).load(path: config)
        let corp = try XCTUnwrap(loaded.catalogue.family(named: "corp"))
        XCTAssertEqual(corp.origin, "config")
        XCTAssertEqual(corp.roots.map(\.facts.spkiSHA256), [root.certificate.facts.spkiSHA256])
        XCTAssertEqual(corp.intermediates.map(\.certificate.facts.spkiSHA256), cas.map(\.certificate.facts.spkiSHA256))
        XCTAssertEqual(Set(corp.intermediates.map(\.root)), ["Corp Root"])
        XCTAssertNotNil(loaded.catalogue.family(named: "letsencrypt"), "the built-in families are there too")
    }

    func testACatalogueFileThatIsNotACertificateIsNamedWithItsLine() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "pki", rootName: "Corp Root", count: 1)
        try scratch.write("pki/notes.pem", "these are notes, not a certificate\n")
        let config = try scratch.write(
            "pinwatch.yaml",
            """
            interval: 60s
            catalogue:
              - name: corp
                roots: [pki/root.pem]
                intermediates:
                  - pki/ca1.pem
                  - pki/notes.pem
            """)
        let found = problems { _ = try loader(userFolder: nil).load(path: config) }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.file, config)
        XCTAssertEqual(found.first?.line, 7)
        XCTAssertTrue(found.first?.description.contains("notes.pem: not a certificate") == true, found.first?.description ?? "")
    }

    func testAnIntermediateThatDoesNotChainToTheDeclaredRootIsNamed() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "pki", rootName: "Corp Root", count: 1)
        _ = try scratch.pool(in: "other", rootName: "Stranger Root", count: 1)
        let config = try scratch.write(
            "pinwatch.yaml",
            """
            catalogue:
              - name: corp
                roots: [pki/root.pem]
                intermediates: [pki/ca1.pem, other/ca1.pem]
            """)
        let found = problems { _ = try loader(userFolder: nil).load(path: config) }
        XCTAssertEqual(found.map(\.line), [4])
        XCTAssertTrue(
            found.first?.message.contains("(Stranger Root CA 1) does not chain to the family's root (Corp Root)") == true,
            found.first?.message ?? "")
    }

    /// Found by fuzzing (Fuzz/corpus/catalogue-family/finding-no-roots.yaml):
    /// a description without `roots:` was a family with nothing to pin.
    func testAFamilyWithoutRootsIsRefused() throws {
        let scratch = try CatalogueScratch()
        let description = try scratch.write("corp/family.yaml", "name: corp\n")
        let found = problems { _ = try CatalogueLoader.load(sources: [], userFolder: scratch.folder) }
        XCTAssertEqual(found.map(\.file), [description])
        XCTAssertTrue(found.first?.message.contains("a family needs at least one root (roots: is missing)") == true, "\(found)")
    }

    func testADuplicateFamilyNameIsNamed() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "pki", rootName: "Corp Root", count: 1)
        let twice = try scratch.write(
            "twice.yaml",
            """
            catalogue:
              - name: corp
                roots: [pki/root.pem]
              - name: corp
                roots: [pki/root.pem]
            """)
        let found = problems { _ = try loader(userFolder: nil).load(path: twice) }
        XCTAssertEqual(found.map(\.line), [4])
        XCTAssertTrue(found.first?.message.contains("duplicate family name \"corp\" (first on line 2)") == true, "\(found)")

        let builtInName = try scratch.write(
            "builtin.yaml",
            """
            catalogue:
              - name: letsencrypt
                roots: [pki/root.pem]
            """)
        let clash = problems { _ = try loader(userFolder: nil).load(path: builtInName) }
        XCTAssertEqual(clash.map(\.line), [2])
        XCTAssertTrue(
            clash.first?.message.contains("duplicate family name \"letsencrypt\" (the catalogue already has it)") == true, "\(clash)")
    }

    func testATransitionDateThatIsNotADateIsNamedInTheUserFile() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "corp", rootName: "Corp Root", count: 1)
        let description = try scratch.write(
            "corp/family.yaml",
            """
            name: corp
            roots:
              - file: root.pem
            intermediates:
              - {file: ca1.pem, state: active, root: root.pem}
            transitions:
              - name: next generation
                effective: next spring
                source: https://example.test/announcement
            """)
        let found = problems { _ = try CatalogueLoader.load(sources: [], userFolder: scratch.folder) }
        XCTAssertEqual(found.map(\.file), [description])
        XCTAssertEqual(found.map(\.line), [8])
        XCTAssertTrue(found.first?.description.contains("expected a date (YYYY-MM-DD), found \"next spring\"") == true, "\(found)")
    }

    func testAUserIntermediateNotSignedByItsRootFailsTheWholeLoad() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "corp", rootName: "Corp Root", count: 1)
        let stranger = try CertificateAuthority.makeRoot(commonName: "Stranger Root").issueIntermediate(commonName: "Stranger CA")
        try scratch.write("corp/stranger.pem", stranger.certificate.pem)
        let description = try scratch.write(
            "corp/family.yaml",
            """
            name: corp
            roots:
              - file: root.pem
            intermediates:
              - {file: ca1.pem, state: active, root: root.pem}
              - {file: stranger.pem, state: standby, root: root.pem}
            """)
        let found = problems { _ = try CatalogueLoader.load(sources: [], userFolder: scratch.folder) }
        XCTAssertEqual(found.map(\.file), [description])
        XCTAssertEqual(found.map(\.line), [6])
        XCTAssertTrue(found.first?.message.contains("stranger.pem (Stranger CA) is not signed by Corp Root") == true, "\(found)")
    }

    func testAnOversizedCatalogueFileIsRefused() throws {
        let scratch = try CatalogueScratch()
        _ = try scratch.pool(in: "pki", rootName: "Corp Root", count: 1)
        try scratch.write("pki/huge.pem", String(repeating: "A", count: 300 * 1024))
        let config = try scratch.write("pinwatch.yaml", "catalogue:\n  - name: corp\n    roots: [pki/huge.pem]\n")
        let found = problems { _ = try loader(userFolder: nil).load(path: config) }
        XCTAssertEqual(found.map(\.line), [3])
    }
}
