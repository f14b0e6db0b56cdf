import Foundation
import PinwatchCore
import PinwatchTestSupport
import XCTest

@testable import PinwatchLocalWorld
@testable import PinwatchProbe

final class CertificateFactsTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
    }

    override func tearDown() {
        folder = nil
    }

    /// A self-signed certificate made by the openssl CLI, so the facts are
    /// checked against an independent implementation.
    private func makeCertificate(name: String, keyOptions: String, subject: String, days: Int = 30, extraArguments: String = "") throws
        -> String
    {
        let key = folder.path("\(name).key")
        let cert = folder.path("\(name).pem")
        try ShellCommand.run(
            "openssl req -x509 -newkey \(keyOptions) -nodes -keyout '\(key)' -out '\(cert)' -days \(days) -subj '\(subject)' \(extraArguments) 2>/dev/null"
        )
        return cert
    }

    private func onlyCertificate(_ path: String) throws -> X509Certificate {
        let certificates = try CertificateReader.certificates(inFile: path)
        XCTAssertEqual(certificates.count, 1)
        return try XCTUnwrap(certificates.first)
    }

    /// Subject = issuer and no key identifier to disagree, but signed by
    /// another key: self-issued, not self-signed. The facts say self-issued
    /// (cheap); where a role depends on it the signature is checked.
    func testASelfIssuedCertificateSignedByAnotherKeyIsNotSelfSigned() throws {
        let ownKey = try PrivateKey.ecdsa(.p256)
        let otherKey = try PrivateKey.ecdsa(.p256)
        let forged = try withSubjectName(commonName: "Forged Root", organization: "Pinwatch Tests") { name in
            try CertificateDraft(
                subject: name, publicKey: ownKey.pointer, validity: .lasting(days: 30), extensions: []
            ).sign(by: .selfSigned(otherKey))
        }
        XCTAssertTrue(forged.facts.isSelfSigned, "self-issued: names and key identifiers agree")
        XCTAssertFalse(forged.facts.withSelfSignatureChecked(forged).isSelfSigned)
        let genuine = try CertificateAuthority.makeRoot(commonName: "Genuine Root")
        XCTAssertTrue(genuine.certificate.facts.withSelfSignatureChecked(genuine.certificate).isSelfSigned)
    }

    func testISRGRootX1SPKIPinIsTheWellKnownOne() throws {
        let path = "/etc/ssl/certs/ISRG_Root_X1.pem"
        try TestEnvironment.require(
            FileManager.default.fileExists(atPath: path), "system trust store lacks ISRG Root X1 (ca-certificates)", skip: { XCTSkip($0) })
        let facts = try onlyCertificate(path).facts
        XCTAssertEqual(Data(facts.spkiSHA256).base64EncodedString(), "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=")
        XCTAssertEqual(facts.subject, "CN=ISRG Root X1,O=Internet Security Research Group,C=US")
        XCTAssertEqual(facts.keyDescription, "RSA 4096")
        XCTAssertTrue(facts.isCA)
        XCTAssertTrue(facts.isSelfSigned)
    }

    func testRSACertificateDigestsMatchTheOpenSSLCommandLine() throws {
        let path = try makeCertificate(
            name: "rsa", keyOptions: "rsa:2048", subject: "/O=Pinwatch Tests/CN=rsa.test",
            extraArguments: "-addext 'subjectAltName=DNS:rsa.test,IP:127.0.0.1,IP:::1'")
        let facts = try onlyCertificate(path).facts
        try assertDigestsMatchCommandLine(facts, certificatePath: path)
        XCTAssertEqual(facts.keyDescription, "RSA 2048")
        XCTAssertEqual(facts.subject, "CN=rsa.test,O=Pinwatch Tests")
        XCTAssertEqual(facts.issuer, facts.subject)
        XCTAssertEqual(facts.subjectAltNames, ["rsa.test", "127.0.0.1", "::1"])
        XCTAssertTrue(facts.isSelfSigned)
    }

    /// DESIGN §3: `key:` of an EC certificate whose point is compressed is
    /// the hash of the uncompressed point, as iOS computes it. Certificate
    /// and expected digest both come from the openssl CLI.
    func testCompressedECPointIsHashedUncompressed() throws {
        let key = folder.path("compressed.key")
        let publicKey = folder.path("compressed.pub")
        let request = folder.path("compressed.csr")
        let cert = folder.path("compressed.pem")
        try ShellCommand.run(
            """
            openssl ecparam -name prime256v1 -genkey -noout -out '\(key)' && \
            openssl ec -in '\(key)' -pubout -conv_form compressed -out '\(publicKey)' 2>/dev/null && \
            openssl req -new -key '\(key)' -subj /CN=compressed.test -out '\(request)' && \
            openssl x509 -req -in '\(request)' -signkey '\(key)' -force_pubkey '\(publicKey)' -days 30 -out '\(cert)' 2>/dev/null
            """)
        let spkiBytes = try ShellCommand.run("openssl x509 -in '\(cert)' -pubkey -noout | openssl pkey -pubin -outform DER | wc -c")
        XCTAssertEqual(spkiBytes, "59", "the certificate really carries a 33-byte compressed point")
        let expected = try ShellCommand.run(
            """
            openssl x509 -in '\(cert)' -pubkey -noout | openssl ec -pubin -conv_form uncompressed -outform DER 2>/dev/null \
            | tail -c 65 | openssl dgst -sha256 -binary | base64
            """)
        let facts = try onlyCertificate(cert).facts
        XCTAssertEqual(Data(facts.keySHA256).base64EncodedString(), expected)
        let compressedPoint = try ShellCommand.run(
            "openssl x509 -in '\(cert)' -pubkey -noout | openssl pkey -pubin -outform DER | tail -c 33 | openssl dgst -sha256 -binary | base64"
        )
        XCTAssertNotEqual(Data(facts.keySHA256).base64EncodedString(), compressedPoint, "not the hash of the compressed form")
        try assertDigestsMatchCommandLine(facts, certificatePath: cert, checkRawKeyWithASN1Parse: false)
    }

    func testECCertificateDigestsMatchTheOpenSSLCommandLine() throws {
        let path = try makeCertificate(name: "ec", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-384", subject: "/CN=ec.test")
        let facts = try onlyCertificate(path).facts
        // An EC point is not DER, so asn1parse cannot dump it; the point
        // printed by `openssl ec -text` is the cross-check instead.
        try assertDigestsMatchCommandLine(facts, certificatePath: path, checkRawKeyWithASN1Parse: false)
        XCTAssertEqual(facts.keyDescription, "ECDSA P-384")

        // The X9.63 point as `openssl ec -text` prints it: `pub:` then hex
        // bytes with colons, up to the next field.
        let text = try ShellCommand.run("openssl x509 -in '\(path)' -pubkey -noout | openssl ec -pubin -text -noout 2>/dev/null")
        let pubSection = try XCTUnwrap(text.components(separatedBy: "pub:").last?.components(separatedBy: "ASN1 OID").first)
        let pointHex = pubSection.filter { $0.isHexDigit }
        let point = stride(from: 0, to: pointHex.count, by: 2).compactMap { offset -> UInt8? in
            let start = pointHex.index(pointHex.startIndex, offsetBy: offset)
            return UInt8(pointHex[start..<pointHex.index(start, offsetBy: 2)], radix: 16)
        }
        XCTAssertEqual(point.count, 97, "uncompressed P-384 point")
        XCTAssertEqual(facts.keySHA256, SHA256Digest.of(point))
    }

    func testEd25519KeyIsDescribed() throws {
        let path = try makeCertificate(name: "ed", keyOptions: "ed25519", subject: "/CN=ed.test")
        XCTAssertEqual(try onlyCertificate(path).facts.keyDescription, "Ed25519")
    }

    func testValidityDatesAreUTC() throws {
        let path = try makeCertificate(
            name: "dates", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=dates.test", days: 10)
        let facts = try onlyCertificate(path).facts
        let endDate = try ShellCommand.run("openssl x509 -in '\(path)' -noout -enddate | cut -d= -f2")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy 'GMT'"
        let expected = try XCTUnwrap(formatter.date(from: endDate.replacingOccurrences(of: "  ", with: " ")))
        XCTAssertEqual(facts.notAfter, expected)
        XCTAssertEqual(facts.notAfter.timeIntervalSince(facts.notBefore), 10 * 86_400, accuracy: 1)
    }

    func testUTF8NamesAreKeptReadable() throws {
        let path = try makeCertificate(
            name: "utf8", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256",
            subject: "/O=Grüße, Inc./CN=bücher.test", extraArguments: "-utf8")
        XCTAssertEqual(try onlyCertificate(path).facts.subject, "CN=bücher.test,O=Grüße\\, Inc.")
    }

    func testPEMBundleAndDERFilesAreRead() throws {
        let first = try makeCertificate(name: "one", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=one")
        let second = try makeCertificate(name: "two", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=two")
        let bundle = folder.path("bundle.pem")
        let der = folder.path("one.der")
        try ShellCommand.run("cat '\(first)' '\(second)' > '\(bundle)'; openssl x509 -in '\(first)' -outform DER -out '\(der)'")

        let fromBundle = try CertificateReader.certificates(inFile: bundle)
        XCTAssertEqual(fromBundle.map(\.facts.subject), ["CN=one", "CN=two"])
        let fromDER = try CertificateReader.certificates(inFile: der)
        XCTAssertEqual(fromDER.map(\.der), [fromBundle[0].der])

        let digests = try CertificateReader.certificateDigests(inFile: bundle)
        let expectedHex = try ShellCommand.run("openssl x509 -in '\(second)' -outform DER | sha256sum | cut -d' ' -f1")
        XCTAssertEqual(digests.count, 2)
        XCTAssertEqual(digests[1].map { String(format: "%02x", $0) }.joined(), expectedHex)
    }

    /// The configuration check and the TLS context read a trust bundle in
    /// turn: the second read is served from the first one's parse while the
    /// file is unchanged; an edited or removed file is read afresh.
    func testAFileIsParsedOnceUntilItChanges() throws {
        let first = try makeCertificate(name: "first", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=first")
        let second = try makeCertificate(name: "second", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=second")
        let bundle = folder.path("trust.pem")
        try ShellCommand.run("cp '\(first)' '\(bundle)'")

        let read = try CertificateReader.certificates(inFile: bundle)
        let again = try CertificateReader.certificates(inFile: bundle)
        XCTAssertEqual(read.count, 1)
        XCTAssertTrue(read.first === again.first, "an unchanged file is served from its first parse")

        try ShellCommand.run("cp '\(second)' '\(bundle)'")
        XCTAssertEqual(try CertificateReader.certificates(inFile: bundle).map(\.facts.subject), ["CN=second"])
        XCTAssertEqual(try CertificateReader.certificateDigests(inFile: bundle).count, 1)

        try ShellCommand.run("rm '\(bundle)'")
        XCTAssertThrowsError(try CertificateReader.certificates(inFile: bundle)) { error in
            XCTAssertEqual(error as? CertificateError, .unreadable(path: bundle, reason: "no such file"))
        }
    }

    /// A full cache makes room for the file read now: a process that read
    /// more files than it holds (configurations changed over a long run,
    /// or this test process) still parses each current file once.
    func testAFullCacheKeepsTheFileReadNow() throws {
        let first = try makeCertificate(name: "first", keyOptions: "ec -pkeyopt ec_paramgen_curve:P-256", subject: "/CN=first")
        let paths = (0...CertificateFileCache.capacity).map { folder.path("bundle-\($0).pem") }
        for path in paths {
            try ShellCommand.run("cp '\(first)' '\(path)'")
            _ = try CertificateReader.certificates(inFile: path)
        }
        let newest = try XCTUnwrap(paths.last)
        let read = try CertificateReader.certificates(inFile: newest)
        let again = try CertificateReader.certificates(inFile: newest)
        XCTAssertTrue(read.first === again.first, "the newest of \(paths.count) files is served from its first parse")
    }

    func testUnreadableFilesGiveClearErrors() throws {
        let missing = folder.path("missing.pem")
        XCTAssertThrowsError(try CertificateReader.certificates(inFile: missing)) { error in
            XCTAssertEqual(error as? CertificateError, .unreadable(path: missing, reason: "no such file"))
        }
        let garbage = folder.path("garbage.bin")
        try Data("hello, not a certificate".utf8).write(to: URL(fileURLWithPath: garbage))
        XCTAssertThrowsError(try CertificateReader.certificates(inFile: garbage)) { error in
            XCTAssertEqual(error as? CertificateError, .unreadable(path: garbage, reason: "neither PEM nor a DER certificate"))
        }
        let keyOnly = folder.path("key.pem")
        try ShellCommand.run("openssl genpkey -algorithm ed25519 -out '\(keyOnly)'")
        XCTAssertThrowsError(try CertificateReader.certificates(inFile: keyOnly)) { error in
            guard case .unreadable(let path, _)? = error as? CertificateError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, keyOnly)
        }
        let huge = folder.path("huge.pem")
        try ShellCommand.run("head -c \(CertificateReader.maximumFileSize + 10) /dev/zero > '\(huge)'")
        XCTAssertThrowsError(try CertificateReader.certificates(inFile: huge)) { error in
            XCTAssertEqual(error as? CertificateError, .unreadable(path: huge, reason: "larger than 10 MiB"))
        }
    }

    private func assertDigestsMatchCommandLine(
        _ facts: CertificateFacts, certificatePath path: String, checkRawKeyWithASN1Parse: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let spki = try ShellCommand.run(
            "openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64")
        XCTAssertEqual(Data(facts.spkiSHA256).base64EncodedString(), spki, "SPKI digest", file: file, line: line)
        let spkiSHA1 = try ShellCommand.run(
            "openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha1 -binary | base64")
        XCTAssertEqual(Data(facts.spkiSHA1).base64EncodedString(), spkiSHA1, "legacy sha1/ digest", file: file, line: line)

        let cert = try ShellCommand.run("openssl x509 -in '\(path)' -outform DER | sha256sum | cut -d' ' -f1")
        XCTAssertEqual(facts.certSHA256.map { String(format: "%02x", $0) }.joined(), cert, "certificate digest", file: file, line: line)

        guard checkRawKeyWithASN1Parse else { return }
        // The SPKI is SEQUENCE { AlgorithmIdentifier, BIT STRING }; asn1parse
        // -strparse at the BIT STRING's offset dumps its content, skipping
        // the unused-bits byte, which is exactly the raw key.
        let spkiDER = folder.path("spki-\(UUID().uuidString).der")
        try ShellCommand.run("openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform DER -out '\(spkiDER)'")
        let structure = try ShellCommand.run("openssl asn1parse -inform DER -in '\(spkiDER)'")
        let bitStringLine = try XCTUnwrap(structure.split(separator: "\n").last { $0.contains("BIT STRING") })
        let offset = try XCTUnwrap(bitStringLine.split(separator: ":").first?.trimmingCharacters(in: .whitespaces))
        let rawKeyFile = folder.path("raw-\(UUID().uuidString).bin")
        try ShellCommand.run("openssl asn1parse -inform DER -in '\(spkiDER)' -strparse \(offset) -noout -out '\(rawKeyFile)'")
        let key = try ShellCommand.run("sha256sum '\(rawKeyFile)' | cut -d' ' -f1")
        XCTAssertEqual(facts.keySHA256.map { String(format: "%02x", $0) }.joined(), key, "raw key digest", file: file, line: line)
    }
}
