internal import COpenSSL
import Foundation
import PinwatchProbe

/// A CA certificate with its key: the thing that issues the local PKI.
///
/// Roots, intermediates and cross-signed intermediates are all authorities,
/// so a test builds any hierarchy by chaining `issueIntermediate` calls.
/// Every certificate gets a random serial, SKI (and AKI when issued by
/// another CA) and a SHA-256 signature.
package struct CertificateAuthority: Sendable {
    package let certificate: X509Certificate
    package let key: PrivateKey

    package init(certificate: X509Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// A self-signed root CA (no path length limit). `nameConstraints`, in
    /// OpenSSL's configuration syntax (`permitted;DNS:example.test`), limits
    /// the names every certificate below it may carry; `subjectExtras`
    /// follow the CN, as for a leaf (a hostile root's long `name=`).
    package static func makeRoot(
        commonName: String,
        organization: String? = nil,
        subjectExtras: [(field: String, value: String)] = [],
        key: PrivateKey? = nil,
        validity: ValidityWindow = .lasting(days: 3650),
        nameConstraints: String? = nil
    ) throws -> CertificateAuthority {
        let rootKey = try key ?? PrivateKey.ecdsa(.p256)
        var extensions: [DraftExtension] = [
            .configured(nid: NID_basic_constraints, value: "critical,CA:TRUE"),
            .configured(nid: NID_key_usage, value: "critical,keyCertSign,cRLSign"),
        ]
        if let nameConstraints {
            extensions.append(.configured(nid: NID_name_constraints, value: "critical," + nameConstraints))
        }
        let certificate = try withSubjectName(commonName: commonName, organization: organization, extras: subjectExtras) { name in
            try CertificateDraft(
                subject: name,
                publicKey: rootKey.pointer,
                validity: validity,
                extensions: extensions
            ).sign(by: .selfSigned(rootKey))
        }
        return CertificateAuthority(certificate: certificate, key: rootKey)
    }

    /// An intermediate CA signed by this authority; `pathLength` nil leaves
    /// the depth below it unlimited.
    package func issueIntermediate(
        commonName: String,
        organization: String? = nil,
        key: PrivateKey? = nil,
        pathLength: Int? = 0,
        validity: ValidityWindow = .lasting(days: 1825)
    ) throws -> CertificateAuthority {
        let intermediateKey = try key ?? PrivateKey.ecdsa(.p256)
        let constraints = pathLength.map { "critical,CA:TRUE,pathlen:\($0)" } ?? "critical,CA:TRUE"
        let issued = try withSubjectName(commonName: commonName, organization: organization) { name in
            try CertificateDraft(
                subject: name,
                publicKey: intermediateKey.pointer,
                validity: validity,
                extensions: [
                    .configured(nid: NID_basic_constraints, value: constraints),
                    .configured(nid: NID_key_usage, value: "critical,digitalSignature,keyCertSign,cRLSign"),
                ]
            ).sign(by: .authority(certificate: certificate, key: self.key))
        }
        return CertificateAuthority(certificate: issued, key: intermediateKey)
    }

    /// A TLS server leaf (CA:FALSE, serverAuth) for the given names.
    ///
    /// `paddingBytes` adds a private extension of that size: about 1_000_000
    /// makes the hostile ~1 MB certificate that clients must refuse safely.
    /// `precertificate` adds RFC 6962's critical poison extension: the
    /// certificate a CA submits to Certificate Transparency logs before it
    /// issues the real one, which no TLS client accepts.
    /// `unknownCriticalExtension` adds a small private extension marked
    /// critical, which no verifier handles.
    package func issueLeaf(
        commonName: String,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        organization: String? = nil,
        subjectExtras: [(field: String, value: String)] = [],
        key: PrivateKey? = nil,
        validity: ValidityWindow = .lasting(days: 90),
        paddingBytes: Int = 0,
        precertificate: Bool = false,
        unknownCriticalExtension: Bool = false
    ) throws -> IssuedCertificate {
        let leafKey = try key ?? PrivateKey.ecdsa(.p256)
        var extensions = LeafProfile.extensions(
            for: leafKey, dnsNames: dnsNames, ipAddresses: ipAddresses, paddingBytes: paddingBytes)
        if precertificate { extensions.append(.configured(nid: NID_ct_precert_poison, value: "critical,NULL")) }
        if unknownCriticalExtension { extensions.append(.padding(bytes: 8, critical: true)) }
        let issued = try withSubjectName(commonName: commonName, organization: organization, extras: subjectExtras) { name in
            try CertificateDraft(
                subject: name,
                publicKey: leafKey.pointer,
                validity: validity,
                extensions: extensions
            ).sign(by: .authority(certificate: certificate, key: self.key))
        }
        return IssuedCertificate(certificate: issued, key: leafKey)
    }

    /// Certifies an existing certificate's subject name and public key
    /// again, signed by this authority: the cross-sign that lets one
    /// intermediate key chain to two roots.
    ///
    /// Basic constraints, key usages and subjectAltName are kept; the
    /// validity is the original's unless `validity` is given.
    package func crossSign(_ existing: X509Certificate, validity: ValidityWindow? = nil) throws -> X509Certificate {
        let window: ValidityWindow
        if let validity {
            window = validity
        } else {
            let facts = existing.facts
            window = ValidityWindow(notBefore: facts.notBefore, notAfter: facts.notAfter)
        }
        return try existing.withPointer { original in
            guard let publicKey = X509_get0_pubkey(original), let subject = X509_get_subject_name(original) else {
                throw LocalPKIError.issuing("the certificate to cross-sign has no key or subject")
            }
            let keptNIDs = [NID_basic_constraints, NID_key_usage, NID_ext_key_usage, NID_subject_alt_name]
            let kept: [DraftExtension] = keptNIDs.compactMap { nid in
                let index = X509_get_ext_by_NID(original, nid, -1)
                guard index >= 0, let found = X509_get_ext(original, index) else { return nil }
                return .copied(found)
            }
            return try CertificateDraft(subject: subject, publicKey: publicKey, validity: window, extensions: kept)
                .sign(by: .authority(certificate: certificate, key: key))
        }
    }
}

/// Self-signed leaves: the single-level chain DESIGN §5 calls role `leaf`.
package enum SelfSignedLeaf {
    /// A self-signed end-entity certificate (CA:FALSE, serverAuth), the
    /// kind appliances and development servers present.
    package static func make(
        commonName: String,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        key: PrivateKey? = nil,
        validity: ValidityWindow = .lasting(days: 365)
    ) throws -> IssuedCertificate {
        let leafKey = try key ?? PrivateKey.ecdsa(.p256)
        let certificate = try withSubjectName(commonName: commonName, organization: nil) { name in
            try CertificateDraft(
                subject: name,
                publicKey: leafKey.pointer,
                validity: validity,
                extensions: LeafProfile.extensions(
                    for: leafKey, dnsNames: dnsNames, ipAddresses: ipAddresses, paddingBytes: 0)
            ).sign(by: .selfSigned(leafKey))
        }
        return IssuedCertificate(certificate: certificate, key: leafKey)
    }
}

/// The extensions every server leaf carries, issued or self-signed.
enum LeafProfile {
    static func extensions(
        for key: PrivateKey, dnsNames: [String], ipAddresses: [String], paddingBytes: Int
    ) -> [DraftExtension] {
        let usage = key.isRSA ? "critical,digitalSignature,keyEncipherment" : "critical,digitalSignature"
        return [
            .configured(nid: NID_basic_constraints, value: "critical,CA:FALSE"),
            .configured(nid: NID_key_usage, value: usage),
            .configured(nid: NID_ext_key_usage, value: "serverAuth"),
            .subjectAltNames(dnsNames: dnsNames, ipAddresses: ipAddresses),
            .padding(bytes: paddingBytes),
        ]
    }
}
