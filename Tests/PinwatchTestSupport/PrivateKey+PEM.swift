internal import COpenSSL
import PinwatchLocalWorld
import PinwatchProbe

/// Key files, which only the tests read and write: the product keeps its
/// keys in memory and never loads one.
extension PrivateKey {
    /// Reads an unencrypted private key in PEM (PKCS#8 or traditional form).
    package convenience init(pem: String) throws {
        var bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            throw LocalPKIError.keyEncoding("not a PEM private key: \(OpenSSLErrorQueue.drain())")
        }
        self.init(takingOwnership: key)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    package var pem: String {
        get throws { try Self.pemText { PEM_write_bio_PKCS8PrivateKey($0, pointer, nil, nil, 0, nil, nil) } }
    }

    /// The key in its traditional PEM form (`BEGIN RSA PRIVATE KEY`, `BEGIN EC PRIVATE KEY`).
    package var traditionalPEM: String {
        get throws { try Self.pemText { PEM_write_bio_PrivateKey_traditional($0, pointer, nil, nil, 0, nil, nil) } }
    }

    /// The public key as PEM (`BEGIN PUBLIC KEY`): what `openssl pkey -pubout` writes.
    package var publicKeyPEM: String {
        get throws { try Self.pemText { PEM_write_bio_PUBKEY($0, pointer) } }
    }

    /// A certificate request for `commonName`, signed by this key, in DER.
    package func certificateRequestDER(commonName: String) throws -> [UInt8] {
        try withCertificateRequest(commonName: commonName) { request in
            var out: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_X509_REQ(request, &out)
            guard length > 0, let out else { throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain()) }
            defer { pinwatch_OPENSSL_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: Int(length)))
        }
    }

    /// The request as PEM (`BEGIN CERTIFICATE REQUEST`).
    package func certificateRequestPEM(commonName: String) throws -> String {
        try withCertificateRequest(commonName: commonName) { request in try Self.pemText { PEM_write_bio_X509_REQ($0, request) } }
    }

    private func withCertificateRequest<T>(commonName: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let request = X509_REQ_new(), let name = X509_NAME_new() else { throw LocalPKIError.keyEncoding("cannot allocate a request") }
        defer {
            X509_REQ_free(request)
            X509_NAME_free(name)
        }
        let bytes = Array(commonName.utf8)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1,
            X509_REQ_set_subject_name(request, name) == 1, X509_REQ_set_pubkey(request, pointer) == 1,
            X509_REQ_sign(request, pointer, EVP_sha256()) > 0
        else { throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain()) }
        return try body(request)
    }

    /// What one of OpenSSL's `PEM_write_bio_*` functions writes, as text.
    private static func pemText(_ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw LocalPKIError.keyEncoding("cannot allocate a memory BIO")
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else {
            throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain())
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = pinwatch_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else {
            throw LocalPKIError.keyEncoding("empty PEM output")
        }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
