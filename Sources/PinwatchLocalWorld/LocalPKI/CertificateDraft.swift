internal import COpenSSL
import Foundation
import PinwatchProbe

/// One X.509v3 extension of a certificate being issued.
enum DraftExtension {
    /// An extension in OpenSSL's configuration syntax (`critical,CA:TRUE`).
    case configured(nid: Int32, value: String)
    /// subjectAltName built name by name, so that any bytes in a DNS name
    /// (commas included) survive; hostile demo names rely on it.
    case subjectAltNames(dnsNames: [String], ipAddresses: [String])
    /// An extension copied as is from another certificate (cross-signing).
    case copied(OpaquePointer)
    /// A private extension of `bytes` zero bytes that only makes the
    /// certificate big; `critical`, one no client can handle.
    case padding(bytes: Int, critical: Bool = false)
}

/// Who signs a draft: itself (a self-signed certificate) or an authority.
enum DraftSigner {
    case selfSigned(PrivateKey)
    case authority(certificate: X509Certificate, key: PrivateKey)
}

/// Everything a new certificate contains besides its issuer and signature.
///
/// Kept apart from the public issuing API so that roots, intermediates,
/// leaves and cross-signed copies all go through one signing path.
struct CertificateDraft {
    /// Borrowed `X509_NAME`; copied into the certificate.
    var subject: OpaquePointer
    /// Borrowed `EVP_PKEY` whose public half is certified.
    var publicKey: OpaquePointer
    var validity: ValidityWindow
    var extensions: [DraftExtension]

    /// An unregistered private-enterprise OID: no client understands it, and
    /// being non-critical it is ignored by all of them.
    static let paddingOID = "1.3.6.1.4.1.59999.7.1"

    func sign(by signer: DraftSigner) throws -> X509Certificate {
        guard let x509 = X509_new() else {
            throw LocalPKIError.issuing("cannot allocate a certificate")
        }
        let certificate = X509Certificate(takingOwnership: x509)
        switch signer {
        case .selfSigned(let key):
            try fill(x509, issuedBy: x509, signer: signer, signingKey: key)
        case .authority(let authority, let key):
            // The issuer's pointer is borrowed only while the new certificate is filled in.
            try authority.withPointer { try fill(x509, issuedBy: $0, signer: signer, signingKey: key) }
        }
        return certificate
    }

    private func fill(_ x509: OpaquePointer, issuedBy issuerCertificate: OpaquePointer, signer: DraftSigner, signingKey: PrivateKey) throws
    {
        try check(X509_set_version(x509, Int(X509_VERSION_3)), "version")
        try setRandomSerial(x509)
        try check(X509_set_subject_name(x509, subject), "subject")
        try check(X509_set_issuer_name(x509, X509_get_subject_name(issuerCertificate)), "issuer")
        try setTime(X509_getm_notBefore(x509), validity.notBefore, "notBefore")
        try setTime(X509_getm_notAfter(x509), validity.notAfter, "notAfter")
        try check(X509_set_pubkey(x509, publicKey), "public key")

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate, x509, nil, nil, 0)
        for draftExtension in extensions {
            try add(draftExtension, to: x509, context: &context)
        }
        // Key identifiers last: the AKI is read from the issuer's SKI, and
        // a self-signed root carries only its own SKI.
        try add(.configured(nid: NID_subject_key_identifier, value: "hash"), to: x509, context: &context)
        if case .authority = signer {
            try add(.configured(nid: NID_authority_key_identifier, value: "keyid:always"), to: x509, context: &context)
        }
        guard X509_sign(x509, signingKey.pointer, EVP_sha256()) > 0 else {
            throw LocalPKIError.issuing("signature: \(OpenSSLErrorQueue.drain())")
        }
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result == 1 else {
            throw LocalPKIError.issuing("\(what): \(OpenSSLErrorQueue.drain())")
        }
    }

    /// 127 random bits with the top bit set: positive, non-zero and 16 DER
    /// bytes, as RFC 5280 and the CA/Browser Forum ask.
    private func setRandomSerial(_ x509: OpaquePointer) throws {
        guard let number = BN_new() else { throw LocalPKIError.issuing("cannot allocate a serial") }
        defer { BN_free(number) }
        guard BN_rand(number, 127, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1,
            BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil
        else {
            throw LocalPKIError.issuing("serial: \(OpenSSLErrorQueue.drain())")
        }
    }

    private func setTime(_ field: UnsafeMutablePointer<ASN1_TIME>?, _ date: Date, _ what: String) throws {
        let seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        guard let field, ASN1_TIME_set(field, seconds) != nil else {
            throw LocalPKIError.issuing("\(what): \(OpenSSLErrorQueue.drain())")
        }
    }

    private func add(_ draftExtension: DraftExtension, to x509: OpaquePointer, context: inout X509V3_CTX) throws {
        switch draftExtension {
        case .configured(let nid, let value):
            guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw LocalPKIError.issuing("extension \(value): \(OpenSSLErrorQueue.drain())")
            }
            defer { X509_EXTENSION_free(made) }
            try check(X509_add_ext(x509, made, -1), "extension \(value)")
        case .subjectAltNames(let dnsNames, let ipAddresses):
            try addSubjectAltNames(dnsNames: dnsNames, ipAddresses: ipAddresses, to: x509, context: &context)
        case .copied(let existing):
            try check(X509_add_ext(x509, existing, -1), "copied extension")
        case .padding(let bytes, let critical):
            try addPadding(bytes: bytes, critical: critical, to: x509)
        }
    }

    private func addSubjectAltNames(
        dnsNames: [String], ipAddresses: [String], to x509: OpaquePointer, context: inout X509V3_CTX
    ) throws {
        guard !dnsNames.isEmpty || !ipAddresses.isEmpty else { return }
        guard let names = pinwatch_sk_GENERAL_NAME_new_null() else {
            throw LocalPKIError.issuing("cannot allocate subjectAltName")
        }
        defer { GENERAL_NAMES_free(names) }
        let entries = dnsNames.map { (GEN_DNS, $0) } + ipAddresses.map { (GEN_IPADD, $0) }
        for (kind, value) in entries {
            guard let name = a2i_GENERAL_NAME(nil, nil, &context, kind, value, 0) else {
                throw LocalPKIError.issuing("subjectAltName \(value): \(OpenSSLErrorQueue.drain())")
            }
            guard pinwatch_sk_GENERAL_NAME_push(names, name) > 0 else {
                GENERAL_NAME_free(name)
                throw LocalPKIError.issuing("cannot grow subjectAltName")
            }
        }
        guard X509_add1_ext_i2d(x509, NID_subject_alt_name, UnsafeMutableRawPointer(names), 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw LocalPKIError.issuing("subjectAltName: \(OpenSSLErrorQueue.drain())")
        }
    }

    /// The extension value must itself be DER, so the zeros are wrapped in
    /// an OCTET STRING; a parser that looks inside finds well-formed data.
    private func addPadding(bytes: Int, critical: Bool, to x509: OpaquePointer) throws {
        guard bytes > 0 else { return }
        let value = DEREncoding.octetString(count: bytes)
        guard let object = OBJ_txt2obj(Self.paddingOID, 1) else {
            throw LocalPKIError.issuing("padding OID: \(OpenSSLErrorQueue.drain())")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let octets = ASN1_OCTET_STRING_new() else {
            throw LocalPKIError.issuing("cannot allocate padding")
        }
        defer { ASN1_OCTET_STRING_free(octets) }
        try check(ASN1_OCTET_STRING_set(octets, value, Int32(value.count)), "padding")
        guard let made = X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, octets) else {
            throw LocalPKIError.issuing("padding extension: \(OpenSSLErrorQueue.drain())")
        }
        defer { X509_EXTENSION_free(made) }
        try check(X509_add_ext(x509, made, -1), "padding extension")
    }
}

/// The few DER encodings built by hand.
enum DEREncoding {
    /// An OCTET STRING of `count` zero bytes, with a definite length.
    static func octetString(count: Int) -> [UInt8] {
        var length: [UInt8]
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            var remaining = count
            var digits: [UInt8] = []
            while remaining > 0 {
                digits.insert(UInt8(remaining & 0xff), at: 0)
                remaining >>= 8
            }
            length = [0x80 | UInt8(digits.count)] + digits
        }
        return [0x04] + length + [UInt8](repeating: 0, count: count)
    }
}
