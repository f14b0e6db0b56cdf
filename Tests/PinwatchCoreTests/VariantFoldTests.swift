import Foundation
import XCTest

@testable import PinwatchCore

/// DESIGN §11: a host with `addresses: all` or `key_types:` is
/// several probes; its verdict is the worst of theirs, its row says how
/// they agree, and its reason names the divergence.
final class VariantFoldTests: XCTestCase {
    private typealias F = Fixtures

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
    }

    /// Pinned to intermediate key 2: a chain under intermediate 12 is blocked.
    private var pinnedHost: HostConfig {
        var host = F.host(ca: [F.spkiPin(2)])
        host.addresses = .all
        return host
    }

    private func outcome(_ host: HostConfig, address: String?, keyType: KeyTypeOffer? = nil, intermediate: UInt8 = 2)
        -> (variant: ProbeVariant, report: HostReport)
    {
        var result = F.result(chain: F.chain(intermediateKey: intermediate))
        result.address = address
        return (ProbeVariant(address: address, keyType: keyType), F.report(host, result))
    }

    private func failed(_ host: HostConfig, address: String) -> (variant: ProbeVariant, report: HostReport) {
        let result = ProbeResult.failed(ProbeFailure(kind: .refused, message: "Connection refused"), address: address, elapsed: 0)
        return (ProbeVariant(address: address), F.report(host, result))
    }

    func testAddressesThatAgreeGiveTheSharedVerdictAndSaySo() throws {
        let host = pinnedHost
        let folded = try XCTUnwrap(
            VariantFold.fold([outcome(host, address: "192.0.2.1"), outcome(host, address: "192.0.2.2")]))
        XCTAssertEqual(folded.severity, .ok)
        XCTAssertEqual(folded.variantAgreement, "2/2 same chain")
        XCTAssertEqual(folded.reason, F.report(host, F.result(chain: F.chain())).reason, "no divergence to lead with")
        XCTAssertEqual(folded.variants.map(\.variant.address), ["192.0.2.1", "192.0.2.2"])
    }

    func testTheWorstAddressDecidesAndTheReasonCountsTheOthers() throws {
        let host = pinnedHost
        let folded = try XCTUnwrap(
            VariantFold.fold([
                outcome(host, address: "192.0.2.1"), outcome(host, address: "192.0.2.2", intermediate: 12),
                outcome(host, address: "192.0.2.3"),
            ]))
        XCTAssertEqual(folded.status, .blocked)
        XCTAssertEqual(folded.severity, .critical)
        XCTAssertEqual(folded.result.address, "192.0.2.2", "the worst address's own result")
        XCTAssertEqual(folded.variantAgreement, "1 of 3 addresses serve another chain")
        XCTAssertTrue(folded.reason.hasPrefix("1 of 3 addresses serve another chain; 192.0.2.2: "), folded.reason)
        XCTAssertEqual(folded.variants.map(\.status), [.ok, .blocked, .ok])
        XCTAssertEqual(folded.variants[0].chainSHA256, folded.variants[2].chainSHA256)
        XCTAssertNotEqual(folded.variants[0].chainSHA256, folded.variants[1].chainSHA256)
        XCTAssertEqual(folded.variants[0].chainSHA256.count, 3, "one digest per level")
    }

    func testAFailingAddressIsCountedAsFailingNotAsAnotherChain() throws {
        let host = pinnedHost
        let folded = try XCTUnwrap(VariantFold.fold([outcome(host, address: "192.0.2.1"), failed(host, address: "192.0.2.9")]))
        XCTAssertEqual(folded.status, .error)
        XCTAssertEqual(folded.variantAgreement, "1 of 2 addresses fail")
        XCTAssertEqual(folded.variants[1].error, "Connection refused")
        XCTAssertEqual(folded.variants[1].chainSHA256, [])
    }

    func testTheAddressesPastTheCapAreNamed() throws {
        let host = pinnedHost
        let left = (65...80).map { "127.0.0.\($0)" }
        let folded = try XCTUnwrap(VariantFold.fold([outcome(host, address: "192.0.2.1")], notProbed: left))
        XCTAssertEqual(
            folded.variantAgreement,
            "1/1 same chain (16 not probed this cycle: 127.0.0.65, 127.0.0.66, 127.0.0.67, 127.0.0.68 and 12 more; "
                + "all 80 within 2 cycles, 64 at a time)")
        XCTAssertEqual(folded.addressesNotProbed, left, "every one by name, for the JSON")
        let json = JSONReport.render([folded], generatedAt: Date(timeIntervalSince1970: 0))
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let written = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        XCTAssertEqual(written["addresses_not_probed"] as? [String], left, json)
    }

    func testPastTheCapEachCycleProbesAnotherWindowAndEveryAddressWithinAFewCycles() {
        let many = (0..<150).map { "10.0.\($0 / 256).\($0 % 256)" } + ["10.0.0.1", "2001:db8::1"]
        let first = AddressExpansion.select(many, window: 0)
        XCTAssertEqual(first.addresses.count, AddressExpansion.maximumAddresses)
        XCTAssertEqual(first.notProbed.count, 151 - AddressExpansion.maximumAddresses, "repeats count once")
        XCTAssertFalse(first.addresses.contains("2001:db8::1"), "IPv4 first, so the IPv6 one is in a later window")
        XCTAssertEqual(AddressExpansion.windowCount(151), 3)
        var seen = Set<String>()
        for window in 0..<3 {
            let selection = AddressExpansion.select(many, window: window)
            XCTAssertEqual(selection.addresses.count, AddressExpansion.maximumAddresses, "every window probes the full number")
            XCTAssertEqual(Set(selection.addresses).union(selection.notProbed).count, 151)
            XCTAssertTrue(Set(selection.addresses).isDisjoint(with: selection.notProbed))
            seen.formUnion(selection.addresses)
        }
        XCTAssertEqual(seen.count, 151, "three cycles probe all 151 addresses")
        XCTAssertEqual(AddressExpansion.select(many, window: 3).addresses, first.addresses, "the windows wrap")
        XCTAssertEqual(AddressExpansion.select(many, window: -1).addresses, AddressExpansion.select(many, window: 2).addresses)
        let few = AddressExpansion.select(["10.0.0.2", "10.0.0.1"], window: 7)
        XCTAssertEqual(few.addresses, ["10.0.0.1", "10.0.0.2"])
        XCTAssertEqual(few.notProbed, [])
    }

    func testAKeyTypeThatNoPinMatchesIsNamedWithItsIntermediate() throws {
        var host = F.host(ca: [F.spkiPin(2)])
        host.keyTypes = [.ecdsa, .rsa]
        var rsaChain = F.chain(leafKey: 5, intermediateKey: 12)
        rsaChain[0].facts.issuer = "CN=R11,O=Let's Encrypt,C=US"
        let rsa = (variant: ProbeVariant(keyType: .rsa), report: F.report(host, F.result(chain: rsaChain)))
        let folded = try XCTUnwrap(VariantFold.fold([outcome(host, address: nil, keyType: .ecdsa), rsa]))
        XCTAssertEqual(folded.status, .blocked)
        XCTAssertEqual(folded.variantAgreement, "ecdsa ok, rsa blocked")
        XCTAssertTrue(folded.reason.hasPrefix("RSA clients get a chain under CN=R11 that no pin matches; rsa: "), folded.reason)
        XCTAssertEqual(folded.variants.map(\.variant.keyType), [.ecdsa, .rsa])
    }

    func testAddressesTimesKeyTypesAreEveryProbeAndDecidedAgainWithHistoryKeepTheFold() throws {
        var host = pinnedHost
        host.keyTypes = [.ecdsa, .rsa]
        XCTAssertEqual(
            host.variants(resolvedAddresses: ["192.0.2.1", "192.0.2.2"]),
            [
                ProbeVariant(address: "192.0.2.1", keyType: .ecdsa), ProbeVariant(address: "192.0.2.1", keyType: .rsa),
                ProbeVariant(address: "192.0.2.2", keyType: .ecdsa), ProbeVariant(address: "192.0.2.2", keyType: .rsa),
            ])
        XCTAssertEqual(host.variants(resolvedAddresses: nil), [ProbeVariant(keyType: .ecdsa), ProbeVariant(keyType: .rsa)])
        let folded = try XCTUnwrap(
            VariantFold.fold([outcome(host, address: "192.0.2.1"), outcome(host, address: "192.0.2.2", intermediate: 12)]))
        let again = folded.with(history: HostHistory(), now: F.now)
        XCTAssertEqual(again.reason, folded.reason)
        XCTAssertEqual(again.variants, folded.variants)
        XCTAssertEqual(again.variantAgreement, folded.variantAgreement)
    }

    func testTheKeysAreReadGloballyAndPerHostWithTheirLines() throws {
        let config = try load(
            """
            addresses: all
            key_types: [ecdsa, rsa]
            hosts:
              - host: a.example.com
              - host: b.example.com
                addresses: first
                key_types: []
            """)
        XCTAssertEqual(config.hosts.map(\.addresses), [.all, .first])
        XCTAssertEqual(config.hosts.map(\.keyTypes), [[.ecdsa, .rsa], []])
        XCTAssertEqual(try load("hosts:\n  - host: a.example.com\n").hosts.map(\.addresses), [.first], "first by default")
        let bad: [(String, String, Int)] = [
            ("addresses: every\n", "addresses", 1),
            ("key_types: [ecdsa, dsa]\n", "key_types[1]", 1),
            ("key_types: [rsa, rsa]\n", "key_types[1]", 1),
            ("hosts:\n  - host: a.example.com\n    connect: 192.0.2.1\n    addresses: all\n", "hosts[0].addresses", 4),
            ("hosts:\n  - host: a.example.com\n    adresses: all\n", "hosts[0].adresses", 3),
        ]
        for (yaml, key, line) in bad {
            do {
                _ = try load(yaml)
                XCTFail("accepted: \(yaml)")
            } catch {
                XCTAssertEqual(error.problems.map(\.key), [key], yaml)
                XCTAssertEqual(error.problems.first?.line, line, yaml)
            }
        }
        do {
            _ = try load("hosts:\n  - host: a.example.com\n    adresses: all\n")
        } catch {
            XCTAssertTrue(error.description.contains("did you mean addresses?"), error.description)
        }
    }

    func testJSONAndPrometheusCarryEachAddressOnlyForHostsWithAll() throws {
        let host = pinnedHost
        let folded = try XCTUnwrap(
            VariantFold.fold([outcome(host, address: "192.0.2.1"), outcome(host, address: "192.0.2.2", intermediate: 12)]))
        let plain = F.report(F.host(ca: [F.spkiPin(2)]), F.result(chain: F.chain()))
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(JSONReport.render([folded, plain], generatedAt: F.now).utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(json["hosts"] as? [[String: Any]])
        let addresses = try XCTUnwrap(hosts[0]["addresses"] as? [[String: Any]])
        XCTAssertEqual(addresses.map { $0["address"] as? String }, ["192.0.2.1", "192.0.2.2"])
        XCTAssertEqual(addresses.map { $0["status"] as? String }, ["ok", "blocked"])
        XCTAssertEqual((addresses[0]["chain_sha256"] as? [String])?.first, PinText.hex(F.digest(201)))
        XCTAssertNil(hosts[0]["key_types"])
        XCTAssertNil(hosts[1]["addresses"], "a host probed once keeps today's document")
        XCTAssertNil(hosts[1]["agreement"])

        let text = PrometheusExposition.render([folded, plain], cycle: nil, version: "1.0")
        XCTAssertTrue(
            text.contains("pinwatch_address_status{host=\"api.example.com\",port=\"443\",address=\"192.0.2.2\",status=\"blocked\"} 1"),
            text)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_address_status{") }.count, 2 * HostStatus.allCases.count)
        // A host with addresses: all that resolved to one address: its own
        // status says what the address's would.
        let single = try XCTUnwrap(VariantFold.fold([outcome(host, address: "192.0.2.1")]))
        XCTAssertTrue(single.config.probesEveryAddress)
        let singleText = PrometheusExposition.render([single], cycle: nil, version: "1.0")
        XCTAssertFalse(singleText.contains("pinwatch_address_status{"), singleText)
    }

    func testTheStanzaIsOfTheChainMostAddressesServe() throws {
        let host = pinnedHost
        let folded = try XCTUnwrap(
            VariantFold.fold([
                outcome(host, address: "192.0.2.1", intermediate: 12), outcome(host, address: "192.0.2.2"),
                outcome(host, address: "192.0.2.3"),
            ]))
        XCTAssertEqual(folded.levels[1].certificate.facts.spkiSHA256, F.digest(12), "the verdict is the worst address's")
        let stanza = try XCTUnwrap(PinStanza.document(for: folded))
        XCTAssertTrue(stanza.contains(PinText.sha256(F.digest(2))), stanza)
        XCTAssertFalse(stanza.contains(PinText.sha256(F.digest(12))), stanza)
    }
}
