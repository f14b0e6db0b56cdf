import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// A hosted search with Cert Spotter's v1 API, answered by a local server
/// in the documented format: its issuances are judged as log entries are,
/// read page after page from a kept cursor, with the token from
/// PINWATCH_CT_TOKEN; a refused token and a 429 are reported.
final class CTSearchTests: XCTestCase {
    private struct World {
        let root: CertificateAuthority
        let pinned: CertificateAuthority
        let sibling: CertificateAuthority
        let config: Config
        let store: TrustStore
    }

    private func world() throws -> World {
        let root = try CertificateAuthority.makeRoot(commonName: "Search Test Root")
        let pinned = try root.issueIntermediate(commonName: "Search Pinned CA")
        let sibling = try root.issueIntermediate(commonName: "Search Sibling CA")
        var config = Config(hosts: [HostConfig(host: "api.example.test")])
        let pin = Pin(
            kind: .spki, digest: pinned.certificate.facts.spkiSHA256, text: PinText.sha256(pinned.certificate.facts.spkiSHA256))
        config.clients = [
            ClientPolicy(
                name: "android 5.2",
                pins: ImportedPins(
                    file: "nsc.xml", format: .nsc,
                    rules: [ClientPinRule(domain: "example.test", includeSubdomains: true, pins: [pin], origin: "nsc.xml:3")]))
        ]
        return World(
            root: root, pinned: pinned, sibling: sibling, config: config,
            store: TrustStore(name: "test", anchors: [root.certificate.facts]))
    }

    private func issue(_ names: [String], under issuer: CertificateAuthority, precertificate: Bool = false) throws -> X509Certificate {
        try issuer.issueLeaf(commonName: names[0], dnsNames: names, precertificate: precertificate).certificate
    }

    func testIssuancesAreJudgedPageByPageFromTheCursor() throws {
        let world = try world()
        let search = try LocalCTSearch(token: "s3cret", pageSize: 2)
        defer { search.stop() }
        search.add(try issue(["api.example.test"], under: world.sibling), issuer: world.sibling.certificate)
        search.add(try issue(["unwatched.test"], under: world.sibling), issuer: world.sibling.certificate)
        search.add(
            try issue(["*.example.test"], under: world.pinned, precertificate: true), precertificate: true, issuer: world.pinned.certificate
        )
        // A subdomain the query returns and no configured host is served by.
        search.add(try issue(["www.api.example.test"], under: world.sibling), issuer: world.sibling.certificate)
        let client = CTSearchClient(baseURL: search.url, environment: [CTSearchClient.tokenVariable: "s3cret"], timeout: 10)
        XCTAssertTrue(client.hasToken)
        let watch = CTWatch(
            logs: [], config: world.config, store: world.store, search: client,
            knownIssuers: [world.pinned.certificate.facts, world.sibling.certificate.facts])

        let first = watch.cycle(now: Date())
        XCTAssertEqual(first.search.map(\.domain), ["api.example.test"])
        XCTAssertNil(first.search[0].error)
        XCTAssertEqual(first.search[0].cursor, "1003")
        let logged = try XCTUnwrap(first.logged["api.example.test"])
        XCTAssertEqual(Set(logged.map(\.index)), [1000, 1002], "the unwatched names are left out")
        let sibling = try XCTUnwrap(logged.first { $0.index == 1000 })
        let wildcard = try XCTUnwrap(logged.first { $0.index == 1002 })
        XCTAssertEqual(sibling.verdict.breaks, ["android 5.2"])
        XCTAssertEqual(sibling.issuerSPKISHA256, world.sibling.certificate.facts.spkiSHA256)
        XCTAssertFalse(sibling.precertificate)
        XCTAssertEqual(wildcard.verdict.survives, ["android 5.2"])
        XCTAssertTrue(wildcard.precertificate)
        XCTAssertEqual(wildcard.log, "search 127.0.0.1")
        let queries = search.receivedQueries
        XCTAssertEqual(queries.count, 3, "two pages of two, then an empty one: \(queries)")
        XCTAssertTrue(queries[0].contains("domain=api.example.test") && queries[0].contains("include_subdomains=true"), queries[0])
        XCTAssertTrue(queries[0].contains("expand=dns_names&expand=issuer&expand=cert"), queries[0])
        XCTAssertFalse(queries[0].contains("after="), queries[0])
        XCTAssertTrue(queries[1].hasSuffix("after=1002"), queries[1])
        XCTAssertTrue(queries[2].hasSuffix("after=1003"), queries[2])

        // Nothing new: nothing judged again, the cursor kept.
        let second = watch.cycle(now: Date())
        XCTAssertEqual(second.logged, [:])
        XCTAssertEqual(second.search[0].cursor, "1003")
        search.add(try issue(["api.example.test"], under: world.pinned), issuer: world.pinned.certificate)
        let third = watch.cycle(now: Date())
        XCTAssertEqual(third.logged["api.example.test"]?.map(\.index), [1004])
        XCTAssertEqual(third.logged["api.example.test"]?.first?.verdict.survives, ["android 5.2"])
        XCTAssertEqual(watch.searchCursors, ["api.example.test": "1004"])

        // A watch made from the cursors resumes there.
        let resumed = CTWatch(
            logs: [], config: world.config, store: world.store, search: client, searchCursors: watch.searchCursors)
        XCTAssertEqual(resumed.cycle(now: Date()).logged, [:])
    }

    func testAWrongTokenIsRefusedAndReported() throws {
        let world = try world()
        let search = try LocalCTSearch(token: "s3cret")
        defer { search.stop() }
        search.add(try issue(["api.example.test"], under: world.sibling), issuer: world.sibling.certificate)
        let client = CTSearchClient(baseURL: search.url, environment: [CTSearchClient.tokenVariable: "wrong"], timeout: 10)
        let watch = CTWatch(logs: [], config: world.config, store: world.store, search: client)
        let cycle = watch.cycle(now: Date())
        XCTAssertEqual(cycle.logged, [:])
        let error = try XCTUnwrap(cycle.search.first?.error)
        guard case .httpStatus(401, _) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(error.description.contains("refused the token in PINWATCH_CT_TOKEN"), error.description)
        XCTAssertFalse(error.description.contains("wrong"), "the token is not echoed")
        XCTAssertNil(cycle.search.first?.cursor)
    }

    /// A token that would add a header line of its own is not sent at all
    /// (sent, its first line would pass as the right token).
    func testATokenWithALineBreakIsNotSent() throws {
        let search = try LocalCTSearch(token: "s3cret")
        defer { search.stop() }
        let client = CTSearchClient(baseURL: search.url, token: "s3cret\r\nX-Injected: yes", timeout: 10)
        XCTAssertThrowsError(try client.issuances(domain: "api.example.test", after: nil)) { error in
            guard case .httpStatus(401, _) = error as? CTLogError else { return XCTFail("\(error)") }
        }
    }

    /// A 429 is backed off as a log's is: not asked again before the wait.
    func testASearchAnswering429IsBackedOff() throws {
        let world = try world()
        let search = try LocalCTSearch(token: "s3cret")
        defer { search.stop() }
        search.status = 429
        var backoff = CTWatch.Backoff()
        backoff.first = 60
        let client = CTSearchClient(baseURL: search.url, token: "s3cret", timeout: 10)
        let watch = CTWatch(logs: [], config: world.config, store: world.store, backoff: backoff, search: client)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = watch.cycle(now: start)
        XCTAssertEqual(first.search.first?.backingOffUntil, start.addingTimeInterval(60))
        XCTAssertEqual(search.receivedQueries.count, 1)
        _ = watch.cycle(now: start.addingTimeInterval(30))
        XCTAssertEqual(search.receivedQueries.count, 1, "not asked while backing off")
        search.status = nil
        search.add(try issue(["api.example.test"], under: world.pinned), issuer: world.pinned.certificate)
        let later = watch.cycle(now: start.addingTimeInterval(61))
        XCTAssertNil(later.search.first?.error)
        XCTAssertEqual(later.logged["api.example.test"]?.count, 1)
    }
}
