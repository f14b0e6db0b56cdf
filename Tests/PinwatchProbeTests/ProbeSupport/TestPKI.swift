import Foundation
import PinwatchCore
import PinwatchProbe

/// A root → intermediate → leaf hierarchy for `api.test` and 127.0.0.1,
/// built in process for each test that needs one.
struct TestPKI {
    let root: CertificateAuthority
    let intermediate: CertificateAuthority

    init(rootName: String = "Pinwatch Test Root") throws {
        root = try CertificateAuthority.makeRoot(commonName: rootName, organization: "Pinwatch Tests")
        intermediate = try root.issueIntermediate(commonName: "Pinwatch Test Intermediate", organization: "Pinwatch Tests")
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
    static func local(_ server: LocalTLSServer, trust: TrustSource, serverName: String = "api.test", timeout: TimeInterval = 5) -> ProbeTarget {
        ProbeTarget(host: "api.test", port: server.port, serverName: serverName, connectAddress: server.host,
                    trust: trust, timeout: timeout)
    }
}
