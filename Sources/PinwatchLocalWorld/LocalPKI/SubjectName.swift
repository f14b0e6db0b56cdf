internal import COpenSSL
import Foundation
import PinwatchProbe

/// Builds a temporary `X509_NAME` (O then CN, as public CAs order them)
/// and lends it to `body`.
///
/// Values go in as UTF-8 bytes untouched, so the demo can issue names with
/// control characters to prove that the dashboard sanitises them. `extras`
/// follow the CN (a dotted OID escapes the 64-character limits of the
/// named fields, for the hostile-peer tests' huge subjects).
func withSubjectName<T>(
    commonName: String, organization: String?, extras: [(field: String, value: String)] = [], _ body: (OpaquePointer) throws -> T
) throws -> T {
    guard let name = X509_NAME_new() else {
        throw LocalPKIError.issuing("cannot allocate a name")
    }
    defer { X509_NAME_free(name) }
    var entries: [(String, String)] = []
    if let organization { entries.append(("O", organization)) }
    entries.append(("CN", commonName))
    entries += extras.map { ($0.field, $0.value) }
    for (field, value) in entries {
        let bytes = Array(value.utf8)
        let added = bytes.withUnsafeBufferPointer { buffer in
            X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, buffer.baseAddress, Int32(buffer.count), -1, 0)
        }
        guard added == 1 else {
            throw LocalPKIError.issuing("name \(field)=\(value.prefix(64)): \(OpenSSLErrorQueue.drain())")
        }
    }
    return try body(name)
}
