import CZlib
import Foundation

/// A gzip stream (RFC 1952) made of a large head compressed once and a
/// small tail compressed per answer: the cycle's text is deflated once per
/// render and ends on a full flush (byte-aligned, no reference past it), so
/// each scrape adds only its own `process_*` lines as a final deflate
/// stream and a trailer whose CRC zlib combines from the two parts'. One
/// gzip member, as every decoder reads (curl reads no second member).
struct GzipHead: Sendable {
    /// The gzip header and the head's deflate blocks, none of them final.
    let bytes: [UInt8]
    let crc: UInt
    let length: Int

    /// Level 1: the text is repetitive, and a render is not served until
    /// it is compressed (Benchmarks/README.md, "/metrics compressed").
    static let level: Int32 = 1

    init(_ text: UnsafeRawBufferPointer) {
        var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        out += Self.deflate(text, flush: Z_FULL_FLUSH)
        bytes = out
        crc = Self.crc32(0, text)
        length = text.count
    }

    init(_ text: [UInt8]) {
        self = text.withUnsafeBytes { GzipHead($0) }
    }

    /// The rest of the stream after `bytes`: `text` deflated to its final
    /// block, then the CRC and length of head and tail together.
    func tail(_ text: [UInt8]) -> [UInt8] {
        var out = text.withUnsafeBytes { Self.deflate($0, flush: Z_FINISH) }
        let tailCRC = text.withUnsafeBytes { Self.crc32(0, $0) }
        let whole = crc32_combine(crc, tailCRC, off_t(text.count))
        let size = UInt32(truncatingIfNeeded: length + text.count)
        for value in [UInt32(truncatingIfNeeded: whole), size] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return out
    }

    private static func crc32(_ start: UInt, _ buffer: UnsafeRawBufferPointer) -> UInt {
        guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return start }
        var crc = start
        var offset = 0
        // uInt lengths: a buffer past 4 GiB goes in pieces.
        while offset < buffer.count {
            let piece = min(buffer.count - offset, 1 << 30)
            crc = CZlib.crc32(crc, base + offset, uInt(piece))
            offset += piece
        }
        return crc
    }

    /// Raw deflate (no zlib or gzip wrapper) of `input`, ended by `flush`.
    /// The input is read in place (zlib never writes through `next_in`).
    private static func deflate(_ input: UnsafeRawBufferPointer, flush: Int32) -> [UInt8] {
        var stream = z_stream()
        guard pinwatch_deflate_init(&stream, level, -15) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 + 64)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        stream.next_in = input.bindMemory(to: UInt8.self).baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        stream.avail_in = uInt(input.count)
        var status = Z_OK
        repeat {
            chunk.withUnsafeMutableBufferPointer { space in
                stream.next_out = space.baseAddress
                stream.avail_out = uInt(space.count)
                status = CZlib.deflate(&stream, flush)
                out.append(contentsOf: space[0..<(space.count - Int(stream.avail_out))])
            }
            // A flush is complete once it leaves output space unused; a
            // finish, once zlib says the stream ended.
        } while status == Z_OK && (flush == Z_FINISH || stream.avail_out == 0)
        return out
    }
}
