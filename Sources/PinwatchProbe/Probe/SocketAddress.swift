import Glibc

/// An IPv4 or IPv6 socket address, ready for `connect`.
package struct SocketAddress {
    package private(set) var storage = sockaddr_storage()
    package private(set) var length: socklen_t = 0

    package var family: Int32 { Int32(storage.ss_family) }

    /// Parses an IP literal (`192.0.2.1`, `2001:db8::1`, `[::1]`) without any
    /// lookup, so that numeric targets never wait for the resolver pool.
    package static func numeric(_ host: String, port: Int) -> SocketAddress? {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var address = SocketAddress()
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, text, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeMutableBytes(of: &address.storage) { target in
                withUnsafeBytes(of: v4) { target.copyMemory(from: $0) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in>.size)
            return address
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, text, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeMutableBytes(of: &address.storage) { target in
                withUnsafeBytes(of: v6) { target.copyMemory(from: $0) }
            }
            address.length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            return address
        }
        return nil
    }

    package static func isIPLiteral(_ host: String) -> Bool {
        numeric(host, port: 0) != nil
    }

    /// Copies one `getaddrinfo` answer.
    package init?(_ info: UnsafePointer<addrinfo>) {
        let entry = info.pointee
        guard let source = entry.ai_addr, entry.ai_family == AF_INET || entry.ai_family == AF_INET6,
            Int(entry.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
        else { return nil }
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(entry.ai_addrlen)))
        }
        length = entry.ai_addrlen
    }

    private init() {}

    /// The bare IP, as reports show the dialled address.
    package var ipText: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = storage
        let converted: UnsafePointer<CChar>? = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<sockaddr_storage>.size) { bytes in
                let raw = UnsafeRawPointer(bytes)
                if family == AF_INET {
                    let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr) ?? 4
                    return inet_ntop(AF_INET, raw + offset, &text, socklen_t(text.count))
                }
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr) ?? 8
                return inet_ntop(AF_INET6, raw + offset, &text, socklen_t(text.count))
            }
        }
        return converted == nil ? "?" : String(cString: text)
    }

    package var port: Int {
        withUnsafeBytes(of: storage) { raw in
            let offset =
                family == AF_INET
                ? (MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_port) ?? 2)
                : (MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_port) ?? 2)
            return Int(UInt16(raw[offset]) << 8 | UInt16(raw[offset + 1]))
        }
    }

    /// `ip:port`, with brackets around IPv6.
    package var endpointText: String {
        family == AF_INET6 ? "[\(ipText)]:\(port)" : "\(ipText):\(port)"
    }

    package func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
