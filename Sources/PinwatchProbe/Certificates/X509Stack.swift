internal import COpenSSL

/// `STACK_OF(X509)` to and from Swift arrays, as the verified-chain caches
/// and the chain collector pass chains to and from OpenSSL.
enum X509Stack {
    /// The stack's certificates, borrowed: they live as long as the stack.
    static func certificates(_ stack: OpaquePointer) -> [OpaquePointer] {
        (0..<pinwatch_sk_X509_num(stack)).compactMap { pinwatch_sk_X509_value(stack, $0) }
    }

    /// A new stack holding a reference of its own to each certificate, for
    /// OpenSSL to take over (`X509_STORE_CTX_set0_verified_chain`).
    static func retaining(_ chain: [OpaquePointer]) -> OpaquePointer? {
        guard let stack = pinwatch_sk_X509_new_null() else { return nil }
        for certificate in chain {
            X509_up_ref(certificate)
            _ = pinwatch_sk_X509_push(stack, certificate)
        }
        return stack
    }

    /// A new stack lending the certificates (freed with `sk_X509_free`,
    /// which leaves them to their owners).
    static func borrowing(_ chain: [OpaquePointer]) -> OpaquePointer? {
        guard let stack = pinwatch_sk_X509_new_null() else { return nil }
        for certificate in chain { _ = pinwatch_sk_X509_push(stack, certificate) }
        return stack
    }
}
