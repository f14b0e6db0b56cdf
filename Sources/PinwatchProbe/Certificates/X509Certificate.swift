internal import COpenSSL
import Foundation

/// The one owner of an OpenSSL `X509`: takes a reference in `init`, drops it
/// in `deinit`, and lends the pointer only inside `withPointer`.
///
/// `@unchecked Sendable` because the object is never mutated after `init`
/// and OpenSSL's `X509` read functions are thread-safe on a shared object.
package final class X509Certificate: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Takes over a reference the caller owns.
    package init(takingOwnership pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a certificate someone else owns (a chain entry).
    package init(borrowing pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    package convenience init(der: [UInt8]) throws {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            throw CertificateError.decoding("not a DER certificate: \(OpenSSLErrorQueue.drain())")
        }
        self.init(takingOwnership: decoded)
    }

    /// Every certificate of a PEM text, in order.
    package static func certificates(pem: String) throws -> [X509Certificate] {
        var bytes = Array(pem.utf8)
        return try bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                throw CertificateError.decoding("cannot allocate a memory BIO")
            }
            defer { BIO_free(bio) }
            var certificates: [X509Certificate] = []
            while let next = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(X509Certificate(takingOwnership: next))
            }
            // The loop ends on "no start line" at the end of the text: only
            // that error is expected; anything else means a broken block.
            let leftover = OpenSSLErrorQueue.drainCodes()
            let endOfInput = leftover.allSatisfy { ERR_GET_REASON($0) == PEM_R_NO_START_LINE }
            if !endOfInput {
                throw CertificateError.decoding("a PEM certificate block is damaged")
            }
            return certificates
        }
    }

    package func withPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(pointer)
    }

    package var der: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(pointer, &out)
        guard length > 0, let out else { return [] }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    package var pem: String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}

package enum CertificateError: Error, Hashable, Sendable, CustomStringConvertible {
    case decoding(String)
    case unreadable(path: String, reason: String)

    package var description: String {
        switch self {
        case .decoding(let reason): return reason
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        }
    }
}

/// OpenSSL reports errors on a per-thread queue; every failure path drains
/// it so that a stale error never shows up in a later, unrelated message.
package enum OpenSSLErrorQueue {
    package static func drainCodes() -> [UInt] {
        var codes: [UInt] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            codes.append(code)
        }
        return codes
    }

    /// The queue as one line, most recent reason last.
    package static func drain() -> String {
        text(of: drainCodes())
    }

    /// The one place OpenSSL error codes become words.
    package static func text(of codes: [UInt]) -> String {
        guard !codes.isEmpty else { return "unknown OpenSSL error" }
        return codes.map { code -> String in
            if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
            return "OpenSSL error \(code)"
        }.joined(separator: "; ")
    }
}
