internal import COpenSSL

/// DER bytes decoded by one of OpenSSL's `d2i_` functions, kept only when
/// the decoding used every byte: trailing bytes after the object are not
/// the object the caller was given.
enum WholeDER {
    /// `decode` is the `d2i_` call (its cursor and length), `free` the
    /// object's free function, called when bytes were left over.
    static func decode(
        _ der: [UInt8], with decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
        free: (OpaquePointer) -> Void
    ) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let parsed = decode(&cursor, buffer.count) else { return nil }
            guard let base = buffer.baseAddress, cursor == base + buffer.count else {
                free(parsed)
                return nil
            }
            return parsed
        }
    }
}
