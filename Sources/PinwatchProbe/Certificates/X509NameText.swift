internal import COpenSSL

/// Distinguished names as one RFC 4514 line, most specific RDN first.
enum X509NameText {
    static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, pinwatch_XN_FLAG_RFC2253_UTF8()) >= 0 else {
            _ = OpenSSLErrorQueue.drainCodes()
            return ""
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = pinwatch_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
        return String(decoding: bytes, as: UTF8.self)
    }
}
