import Foundation

/// A CA run by `openssl ca` in a folder of its own: leaves whose
/// crlDistributionPoints name a local HTTP server, revocations with a
/// reason, CRLs (and one signed by an impostor's key under the same name),
/// and OCSP responses for `openssl s_server -status_file`.
package final class RevocationPKI {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let folder: URL
    /// What every leaf's crlDistributionPoints names.
    package let crlURL: String

    package var caCertificate: URL { folder.appendingPathComponent("ca.pem") }

    /// A new empty folder for a CA and the server of its CRLs.
    package static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-crl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `crlURL`: written into every leaf issued with a distribution point.
    /// The folder (`makeFolder`) is removed with the CA.
    package init(folder: URL, crlURL: String) throws {
        self.crlURL = crlURL
        self.folder = folder
        try "".write(to: file("index.txt"), atomically: true, encoding: .utf8)
        try "1000\n".write(to: file("serial"), atomically: true, encoding: .utf8)
        try "1000\n".write(to: file("crlnumber"), atomically: true, encoding: .utf8)
        try configuration.write(to: file("ca.cnf"), atomically: true, encoding: .utf8)
        for name in ["ca", "impostor"] {
            try openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key",
                "-out", "\(name).pem", "-days", "90", "-subj", "/CN=Pinwatch Revocation Test CA", "-config", "ca.cnf",
                "-extensions", "v3_ca",
            ])
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    package func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// A leaf for `localhost` and 127.0.0.1, valid 60 days (well past
    /// `warn_days`, so only revocation speaks); `distributionPoint`: with
    /// the crlDistributionPoints extension. Returns its PEM file and key's.
    @discardableResult
    package func issueLeaf(_ name: String, distributionPoint: Bool = true) throws -> (certificate: URL, key: URL) {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key", "-out",
            "\(name).csr", "-subj", "/CN=localhost", "-config", "ca.cnf",
        ])
        try openssl([
            "ca", "-batch", "-config", "ca.cnf", "-in", "\(name).csr", "-out", "\(name).pem", "-days", "60", "-notext",
            "-extensions", distributionPoint ? "leaf_crl" : "leaf_plain",
        ])
        return (file("\(name).pem"), file("\(name).key"))
    }

    package func revoke(_ name: String, reason: String = "keyCompromise") throws {
        try openssl(["ca", "-batch", "-config", "ca.cnf", "-revoke", "\(name).pem", "-crl_reason", reason])
    }

    /// The CA's CRL (DER) as `name`, valid for `hours`; `impostor`: signed
    /// by another key under the CA's name.
    @discardableResult
    package func writeCRL(_ name: String, hours: Int = 24, impostor: Bool = false) throws -> URL {
        let signer = impostor ? "impostor" : "ca"
        try openssl([
            "ca", "-batch", "-config", "ca.cnf", "-gencrl", "-crlhours", "\(hours)", "-cert", "\(signer).pem", "-keyfile",
            "\(signer).key", "-out", "\(name).pem",
        ])
        try openssl(["crl", "-in", "\(name).pem", "-outform", "DER", "-out", name])
        return file(name)
    }

    /// An OCSP response for leaf `name`, signed by the CA, as
    /// `s_server -status_file` staples it.
    @discardableResult
    package func writeOCSPResponse(for name: String, as output: String) throws -> URL {
        try openssl([
            "ocsp", "-index", "index.txt", "-rsigner", "ca.pem", "-rkey", "ca.key", "-CA", "ca.pem", "-issuer", "ca.pem",
            "-cert", "\(name).pem", "-respout", output, "-ndays", "7",
        ])
        return file(output)
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let log = file("openssl.log")
        if !FileManager.default.fileExists(atPath: log.path) { FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(text.suffix(600))")
        }
    }

    private var configuration: String {
        """
        [ ca ]
        default_ca = test_ca

        [ test_ca ]
        dir = .
        database = ./index.txt
        serial = ./serial
        crlnumber = ./crlnumber
        new_certs_dir = .
        certificate = ./ca.pem
        private_key = ./ca.key
        default_md = sha256
        policy = anything
        unique_subject = no
        copy_extensions = none

        [ anything ]
        commonName = supplied

        [ req ]
        distinguished_name = request_name

        [ request_name ]

        [ v3_ca ]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign,digitalSignature
        subjectKeyIdentifier = hash

        [ leaf_crl ]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost,IP:127.0.0.1
        crlDistributionPoints = URI:\(crlURL)

        [ leaf_plain ]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost,IP:127.0.0.1

        """
    }
}
