internal import COpenSSL
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
        get throws {
            guard let bio = BIO_new(BIO_s_mem()) else {
                throw LocalPKIError.keyEncoding("cannot allocate a memory BIO")
            }
            defer { BIO_free(bio) }
            guard PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
                throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain())
            }
            var data: UnsafeMutablePointer<CChar>? = nil
            let length = pinwatch_BIO_get_mem_data(bio, &data)
            guard length > 0, let data else {
                throw LocalPKIError.keyEncoding("empty PEM output")
            }
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

}
