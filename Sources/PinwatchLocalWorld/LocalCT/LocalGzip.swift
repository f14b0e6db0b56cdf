import CZlib

/// A gzip stream (RFC 1952) of a whole body, as a static-ct-api log sends
/// its data tiles: the client must unpack it.
enum LocalGzip {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: a gzip wrapper around the deflate stream.
        guard pinwatch_deflate_init(&stream, Z_DEFAULT_COMPRESSION, 31) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let written = input.withUnsafeBufferPointer { source -> Int in
            out.withUnsafeMutableBufferPointer { space -> Int in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = space.baseAddress
                stream.avail_out = uInt(space.count)
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                return space.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(written))
    }
}
