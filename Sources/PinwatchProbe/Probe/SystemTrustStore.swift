internal import COpenSSL
import Foundation
import PinwatchSystem

#if canImport(Glibc)
import Glibc
#endif

/// Whether `trust: system` has anything to trust. Debian's OpenSSL looks in
/// /usr/lib/ssl/cert.pem and /usr/lib/ssl/certs, which the ca-certificates
/// package fills: without it (`--no-install-recommends`, a slim image)
/// every chain is "unable to get local issuer certificate", which reads as
/// the server's fault.
enum SystemTrustStore {
    /// The sentence to add to an untrusted verdict when the store OpenSSL
    /// reads (`SSL_CERT_FILE` and `SSL_CERT_DIR` included) holds no
    /// certificate; nil when it holds one.
    static func emptyStoreNote(environment: [String: String] = ProcessEnvironment.current) -> String? {
        let fileVariable = String(cString: X509_get_default_cert_file_env())
        let directoryVariable = String(cString: X509_get_default_cert_dir_env())
        let file = environment[fileVariable] ?? String(cString: X509_get_default_cert_file())
        let directories = (environment[directoryVariable] ?? String(cString: X509_get_default_cert_dir()))
            .split(separator: ":").map(String.init)
        var info = stat()
        if stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 { return nil }
        if directories.contains(where: hasHashedCertificate) { return nil }
        let places = ([file] + directories).joined(separator: ", ")
        return "the system trust store is empty (\(places)): install ca-certificates"
    }

    /// A `c_rehash` name (`5ad8a5d6.0`): how OpenSSL finds a certificate in
    /// a folder. Stops at the first one.
    private static func hasHashedCertificate(_ directory: String) -> Bool {
        guard let handle = opendir(directory) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let parts = name.split(separator: ".")
            if parts.count == 2, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit), !parts[1].isEmpty,
                parts[1].allSatisfy(\.isNumber)
            {
                return true
            }
        }
        return false
    }
}
