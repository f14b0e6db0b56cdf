import PinwatchCore
import XCTest

/// `probe_targets:` (DESIGN §16): what `/probe` may dial.
final class ProbeTargetsTests: XCTestCase {
    private func load(_ yaml: String) throws -> Config {
        try ConfigLoader { _ in [] }.load(yaml: yaml, path: "/etc/pinwatch.yaml")
    }

    private func problems(_ yaml: String) -> String {
        do {
            _ = try load(yaml)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testNetworksParseAndContainTheirAddresses() throws {
        let ten = try XCTUnwrap(IPNetwork(parsing: "10.1.2.3/8"))
        XCTAssertEqual(ten.description, "10.0.0.0/8", "host bits cleared")
        XCTAssertTrue(ten.contains(address: "10.255.0.1"))
        XCTAssertFalse(ten.contains(address: "11.0.0.1"))
        XCTAssertTrue(ten.contains(address: "::ffff:10.0.0.7"), "an IPv4-mapped address is its IPv4 address")
        XCTAssertFalse(ten.contains(address: "2001:db8::1"))
        XCTAssertFalse(ten.contains(address: "10.example"))

        let documentation = try XCTUnwrap(IPNetwork(parsing: "2001:db8::/33"))
        XCTAssertTrue(documentation.contains(address: "2001:db8:7fff::1"))
        XCTAssertFalse(documentation.contains(address: "2001:db8:8000::1"))
        XCTAssertEqual(IPNetwork(parsing: "192.0.2.7")?.description, "192.0.2.7/32", "a bare address is a network of one")
        XCTAssertEqual(IPNetwork(parsing: "[::1]")?.description, "::1/128")
        XCTAssertTrue(IPNetwork(parsing: "0.0.0.0/0")?.contains(address: "203.0.113.9") == true)

        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "127.1", "2130706433", "0x7f000001", "a.b/8", ""] {
            XCTAssertNil(IPNetwork(parsing: bad), bad)
        }
    }

    func testConfigurationKeyAndItsProblems() throws {
        XCTAssertEqual(try load("hosts: []\n").probeTargets, .configured, "the default")
        XCTAssertEqual(try load("probe_targets: any\n").probeTargets, .any)
        XCTAssertEqual(try load("probe_targets: configured\n").probeTargets, .configured)
        XCTAssertEqual(
            try load("probe_targets: [10.0.0.0/8, \"2001:db8::/32\"]\n").probeTargets,
            .networks([IPNetwork(parsing: "10.0.0.0/8")!, IPNetwork(parsing: "2001:db8::/32")!]))
        XCTAssertEqual(try load("probe_targets: 192.0.2.0/24\n").probeTargets, .networks([IPNetwork(parsing: "192.0.2.0/24")!]))

        let word = problems("interval: 1m\nprobe_targets: everything\n")
        XCTAssertTrue(word.contains("/etc/pinwatch.yaml:2"), word)
        XCTAssertTrue(word.contains("probe_targets"), word)
        XCTAssertTrue(word.contains("expected configured, any or a list of networks"), word)
        let network = problems("probe_targets:\n  - 10.0.0.0/8\n  - 10.0.0.0/99\n")
        XCTAssertTrue(network.contains("/etc/pinwatch.yaml:3"), network)
        XCTAssertTrue(network.contains("probe_targets[1]"), network)
        XCTAssertTrue(network.contains("not a network in CIDR form"), network)
        let empty = problems("probe_targets: []\n")
        XCTAssertTrue(empty.contains("allows nothing"), empty)
    }

    func testOnlyConfiguredHostsByDefault() throws {
        var config = Config(hosts: [HostConfig(host: "api.example.com", port: 8443)])
        func host(_ target: String) throws -> Result<HostConfig, ProbeQueryError> {
            try ProbeQuery.parse([(name: "target", value: target)]).get().host(in: config)
        }
        XCTAssertEqual(try host("API.example.com:8443").get().host, "api.example.com")
        for target in ["0x7f000001:22", "[::1]:22", "0.0.0.0:6379", "api.example.com:22"] {
            guard case .failure(let problem) = try host(target) else { return XCTFail("\(target) allowed") }
            XCTAssertTrue(problem.isForbidden, target)
            XCTAssertTrue(problem.description.contains("is not a configured host"), problem.description)
        }
        // The resolver's numeric shorthands for 127.0.0.1 are no host name:
        // refused as written, whatever the policy.
        for policy in [ProbeTargetPolicy.configured, .any] {
            config.probeTargets = policy
            for target in ["127.1:22", "2130706433:22"] {
                guard case .failure(let problem) = ProbeQuery.parse([(name: "target", value: target)]) else {
                    return XCTFail("\(target) parsed")
                }
                XCTAssertTrue(problem.description.contains("neither an IPv4 address"), problem.description)
            }
        }
        config.probeTargets = .any
        XCTAssertEqual(try host("0x7f000001:22").get().host, "0x7f000001")
        XCTAssertNil(try ProbeQuery.parse([(name: "target", value: "0x7f000001:22")]).get().requiredNetworks(in: config))

        config.probeTargets = .networks([IPNetwork(parsing: "10.0.0.0/8")!])
        let query = try ProbeQuery.parse([(name: "target", value: "0x7f000001:22")]).get()
        XCTAssertEqual(query.requiredNetworks(in: config), [IPNetwork(parsing: "10.0.0.0/8")!])
        let configured = try ProbeQuery.parse([(name: "target", value: "api.example.com:8443")]).get()
        XCTAssertNil(configured.requiredNetworks(in: config), "a configured host needs no check")
    }
}
