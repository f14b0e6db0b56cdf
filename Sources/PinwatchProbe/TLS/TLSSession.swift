internal import COpenSSL

/// The one owner of an OpenSSL `SSL` and its two memory BIOs, for the
/// probe's client side and the local servers alike.
///
/// OpenSSL never touches a socket: the owner feeds it the bytes it read
/// (`feed`), runs the handshake, and sends what it wrote (`takeOutput`).
/// So the owner decides how much OpenSSL sees per event, sockets stay
/// non-blocking, and no write can raise SIGPIPE. Used on one thread at a
/// time (its event loop's).
package final class TLSSession {
    package enum Role {
        case client
        case server
    }

    package enum Step: Equatable {
        case finished
        /// Needs more input from the peer (or has output to send first).
        case wantsInput
        /// `SSL_get_error`'s code; the caller turns it into words.
        case failed(sslError: Int32)
    }

    /// Lent to code that reads the session (chain collection, SNI set-up);
    /// freed only here.
    package let pointer: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer

    package init?(context: OpaquePointer, role: Role) {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            return nil
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            BIO_free(input)
            SSL_free(ssl)
            return nil
        }
        // SSL_set_bio hands both BIOs to the SSL object, freed with it.
        SSL_set_bio(ssl, input, output)
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        pointer = ssl
        self.input = input
        self.output = output
    }

    deinit {
        SSL_free(pointer)
        ERR_clear_error()
    }

    /// Bytes read from the peer and not yet consumed by OpenSSL.
    package var bufferedInput: Int { Int(BIO_ctrl_pending(input)) }

    package func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(input, base, Int32(bytes.count))
    }

    /// The peer closed its side: OpenSSL now reads end-of-stream instead
    /// of "try again".
    package func endOfInput() {
        _ = pinwatch_BIO_set_mem_eof_return(input, 0)
    }

    package func handshake() -> Step {
        ERR_clear_error()
        let status = SSL_do_handshake(pointer)
        if status == 1 { return .finished }
        let error = SSL_get_error(pointer, status)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wantsInput }
        return .failed(sslError: error)
    }

    package enum ReadStep: Equatable {
        case bytes(Int)
        case wantsInput
        /// The peer sent close_notify.
        case closed
        case failed(sslError: Int32)
    }

    /// Encrypts application data after the handshake; the caller sends it
    /// with the next `takeOutput`. The memory BIO takes everything.
    package func write(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        ERR_clear_error()
        return bytes.withUnsafeBytes { SSL_write(pointer, $0.baseAddress, Int32($0.count)) } == Int32(bytes.count)
    }

    /// Decrypts what was fed, up to `maximum` bytes, onto `buffer`.
    package func read(into buffer: inout [UInt8], maximum: Int) -> ReadStep {
        ERR_clear_error()
        var chunk = [UInt8](repeating: 0, count: max(1, min(maximum, 16 * 1024)))
        let count = chunk.withUnsafeMutableBytes { SSL_read(pointer, $0.baseAddress, Int32($0.count)) }
        if count > 0 {
            buffer += chunk.prefix(Int(count))
            return .bytes(Int(count))
        }
        let error = SSL_get_error(pointer, count)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wantsInput }
        if error == SSL_ERROR_ZERO_RETURN { return .closed }
        return .failed(sslError: error)
    }

    /// Queues a close_notify; the caller sends it with the next `takeOutput`.
    package func shutdown() {
        _ = SSL_shutdown(pointer)
        ERR_clear_error()
    }

    /// Appends what OpenSSL wrote since the last call to `buffer`.
    package func takeOutput(into buffer: inout [UInt8]) {
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: pending))
        let read = buffer.withUnsafeMutableBytes { raw in
            BIO_read(output, raw.baseAddress?.advanced(by: start), Int32(pending))
        }
        buffer.removeLast(pending - max(0, Int(read)))
    }
}
