internal import COpenSSL
import Glibc

/// DNS names and IP addresses of the subjectAltName extension, in order.
enum SubjectAltNames {
    static func names(of x509: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        let stack = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(stack) }
        var names: [String] = []
        for index in 0..<pinwatch_sk_GENERAL_NAME_num(stack) {
            guard let entry = pinwatch_sk_GENERAL_NAME_value(stack, index) else { continue }
            switch entry.pointee.type {
            case GEN_DNS:
                if let text = bytes(of: entry.pointee.d.dNSName) {
                    names.append(String(decoding: text, as: UTF8.self))
                }
            case GEN_IPADD:
                if let address = bytes(of: entry.pointee.d.iPAddress), let text = ipText(address) {
                    names.append(text)
                }
            default:
                continue
            }
        }
        return names
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8]? {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    private static func ipText(_ address: [UInt8]) -> String? {
        let family: Int32
        switch address.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return converted == nil ? nil : String(cString: text)
    }
}
