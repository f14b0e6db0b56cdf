import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport

/// The local world's root → intermediate hierarchy, with leaves for
/// `api.test` and 127.0.0.1 that tests serve as they need.
struct TestPKI {
    let world: LocalWorld
    var root: CertificateAuthority { world.root }
    var intermediate: CertificateAuthority { world.issuing }

    init(name: String = "Pinwatch Test") throws {
        world = try LocalWorld(name: name, organization: "Pinwatch Tests")
    }

    var trust: TrustSource { .pem(root.certificate.pem) }

    /// Leaf + intermediate, the root left out as real servers do.
    func identity(key: PrivateKey? = nil, validity: ValidityWindow = .lasting(days: 90), paddingBytes: Int = 0) throws -> Identity {
        let leaf = try intermediate.issueLeaf(
            commonName: "api.test", dnsNames: ["api.test"], ipAddresses: ["127.0.0.1"], key: key,
            validity: validity, paddingBytes: paddingBytes)
        return Identity(leaf: leaf, intermediates: [intermediate.certificate])
    }
}

extension ProbeTarget {
    /// `api.test` dialled at the server's loopback port.
    static func local(_ server: LocalTLSServer, trust: TrustSource, serverName: String = "api.test", timeout: TimeInterval = 5)
        -> ProbeTarget
    {
        ProbeTarget(
            host: "api.test", port: server.port, serverName: serverName, connectAddress: server.host,
            trust: trust, timeout: timeout)
    }
}
