import Foundation
import XCTest

/// What the binary says of a configuration a new user wrote: the nearest
/// known name for a misspelt one, and pins pasted in the HPKP header form.
final class CommandsConfigHintsTests: LocalFleetTestCase {

    func testValidateSuggestsTheNearestKeyAndPinSet() throws {
        let config = try fleet.write(
            """
            intervall: 30s
            pinsets:
              prod-ca:
                ca: ["\(LocalFleet.pin(fleet.root.certificate))"]
            hosts:
              - host: a.test
                pinset: prod-cs
                prot: 443

            """, to: "typos.yaml")
        let outcome = try fleet.run(["validate", "--config", config.path])
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("typos.yaml:1: intervall: unknown key (did you mean interval?)"), outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains("hosts[0].pinset: host a.test: unknown pinset \"prod-cs\" (did you mean prod-ca?)"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("hosts[0].prot: unknown key (did you mean port?)"), outcome.stderr)
    }

    func testHPKPHeaderPinsJudgeLikeTheSha256Form() throws {
        let ok = try fleet.addOK("ok.test")
        let pin = LocalFleet.pin(fleet.root.certificate)
        let header = "pin-sha256=\"\(pin.dropFirst("sha256/".count))\""
        let config = try fleet.write(
            """
            timeout: 3s
            trust: trust.pem
            hosts:
              - host: ok.test
                port: \(ok.port)
                connect: 127.0.0.1
                pins:
                  ca:
                    - '\(header)'

            """, to: "hpkp.yaml")
        let outcome = try fleet.run(["check", "--config", config.path])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("PINWATCH OK - 1 host fine (1 ok)"), outcome.stdout)
    }
}
