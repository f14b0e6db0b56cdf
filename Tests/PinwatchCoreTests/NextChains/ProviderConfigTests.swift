import XCTest

@testable import PinwatchCore

/// DESIGN §10: `provider:` on a host or a pin set, checked against the
/// catalogue with the file and line of the name.
final class ProviderConfigTests: XCTestCase {
    private let isrg = "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="
    private let path = "/etc/pinwatch/pinwatch.yaml"

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader { _ in [] }.load(yaml: yaml, path: path)
    }

    private var yaml: String {
        """
        pinsets:
          cdn-set:
            ca: [\(isrg)]
            provider: cdn
        hosts:
          - host: a.example
            pinset: cdn-set
          - host: b.example
            pinset: cdn-set
            provider: other
          - host: c.example
            pins: {ca: [\(isrg)]}

        """
    }

    func testHostsInheritTheirPinSetsProviderAndMayOverrideIt() throws {
        let config = try load(yaml)
        XCTAssertEqual(config.hosts.map(\.provider), ["cdn", "other", nil])
        XCTAssertEqual(config.pinsets["cdn-set"]?.ca.map(\.text), [isrg])
    }

    func testAnUnknownProviderIsAnErrorWithItsLineOnceTheCatalogueIsAttached() throws {
        let config = try load(yaml)
        let catalogue = Catalogue(families: [CatalogueFixtures.letsEncrypt()], providers: [CatalogueFixtures.cdn])
        XCTAssertThrowsError(try config.attaching(catalogue: catalogue)) { error in
            let problems = (error as? ConfigError)?.problems ?? []
            XCTAssertEqual(problems.map(\.line), [10])
            XCTAssertEqual(problems.map(\.key), ["hosts[1].provider"])
            XCTAssertEqual(problems.first?.description, "\(path):10: hosts[1].provider: unknown provider \"other\" (known: cdn)")
        }
        var fixed = config
        fixed.providerReferences.removeAll { $0.name == "other" }
        XCTAssertEqual(try fixed.attaching(catalogue: catalogue).catalogue, catalogue)
    }

    func testAProviderInAHostsOwnPinsIsNotAccepted() {
        XCTAssertThrowsError(try load("hosts:\n  - host: a.example\n    pins: {provider: cdn}\n")) { error in
            XCTAssertEqual((error as? ConfigError)?.problems.map(\.key), ["hosts[0].pins.provider"])
        }
    }

    func testAnEmptyProviderIsRefused() {
        XCTAssertThrowsError(try load("hosts:\n  - host: a.example\n    provider: ''\n")) { error in
            XCTAssertEqual((error as? ConfigError)?.problems.map(\.line), [3])
        }
    }
}
