import Foundation

/// A binary property list (`bplist00`, as Xcode compiles an Info.plist)
/// read without Foundation: swift-corelibs-foundation's reader crashes on
/// some malformed files (a set where it bridges values, found by fuzzing),
/// and a pin file is untrusted input. Every offset, count and reference is
/// checked; sets, UIDs and cycles are refused; depth and the number of
/// values built are bounded, so shared references cannot multiply.
enum BinaryPropertyList {
    struct Malformed: Error {
        var reason: String
    }

    static let maximumDepth = 32
    static let maximumValues = 100_000

    static func read(_ bytes: [UInt8]) throws(Malformed) -> Any {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Malformed(reason: "not a bplist00 file")
        }
        var reader = Reader(bytes: bytes)
        return try reader.top()
    }

    private struct Reader {
        let bytes: [UInt8]
        var offsets: [Int] = []
        var referenceSize = 0
        var building = Set<Int>()
        var budget = BinaryPropertyList.maximumValues

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func integer(at start: Int, size: Int) throws(Malformed) -> Int {
            guard size >= 1, size <= 8, start >= 0, start + size <= bytes.count else { throw Malformed(reason: "truncated") }
            var value: UInt64 = 0
            for byte in bytes[start..<(start + size)] { value = value << 8 | UInt64(byte) }
            guard value <= UInt64(Int.max) else { throw Malformed(reason: "an integer out of range") }
            return Int(value)
        }

        mutating func top() throws(Malformed) -> Any {
            let trailer = bytes.count - 32
            let offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let count = try integer(at: trailer + 8, size: 8)
            let topObject = try integer(at: trailer + 16, size: 8)
            let table = try integer(at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count <= trailer,
                topObject < count, table >= 8, table <= trailer, count <= (trailer - table) / offsetSize
            else { throw Malformed(reason: "a malformed trailer") }
            offsets = []
            offsets.reserveCapacity(count)
            for index in 0..<count {
                let offset = try integer(at: table + index * offsetSize, size: offsetSize)
                guard offset >= 8, offset < table else { throw Malformed(reason: "an object offset out of range") }
                offsets.append(offset)
            }
            return try object(topObject, depth: 0)
        }

        /// The length after a marker: its low nibble, or an integer object.
        func length(_ info: Int, after start: inout Int) throws(Malformed) -> Int {
            guard info == 0x0F else { return info }
            guard start < bytes.count, bytes[start] >> 4 == 0x1 else { throw Malformed(reason: "a malformed length") }
            let size = 1 << Int(bytes[start] & 0x0F)
            let value = try integer(at: start + 1, size: size)
            start += 1 + size
            return value
        }

        func slice(_ start: Int, _ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard count >= 0, start <= bytes.count, count <= bytes.count - start else { throw Malformed(reason: "truncated") }
            return bytes[start..<(start + count)]
        }

        mutating func object(_ reference: Int, depth: Int) throws(Malformed) -> Any {
            guard reference >= 0, reference < offsets.count else { throw Malformed(reason: "a reference out of range") }
            guard depth <= BinaryPropertyList.maximumDepth else { throw Malformed(reason: "nested too deep") }
            budget -= 1
            guard budget >= 0 else { throw Malformed(reason: "too many values") }
            guard building.insert(reference).inserted else { throw Malformed(reason: "an object that contains itself") }
            defer { building.remove(reference) }
            var start = offsets[reference]
            let marker = bytes[start]
            let info = Int(marker & 0x0F)
            start += 1
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return false
                case 0x09: return true
                default: throw Malformed(reason: "an unsupported value")
                }
            case 0x1:
                guard info <= 3 else { throw Malformed(reason: "an integer wider than 64 bits") }
                let size = 1 << info
                let raw = try slice(start, size).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return size == 8 ? Int(Int64(bitPattern: raw)) : Int(raw)
            case 0x2, 0x3:
                let size = marker == 0x33 ? 8 : 1 << info
                guard size == 4 || size == 8 else { throw Malformed(reason: "a malformed real") }
                let raw = try slice(start, size).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let value = size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)
                return marker == 0x33 ? Date(timeIntervalSinceReferenceDate: value) : value
            case 0x4:
                let count = try length(info, after: &start)
                return Data(try slice(start, count))
            case 0x5:
                let count = try length(info, after: &start)
                guard let text = String(validating: try slice(start, count), as: UTF8.self) else {
                    throw Malformed(reason: "a string that is not ASCII")
                }
                return text
            case 0x6:
                let count = try length(info, after: &start)
                guard count <= bytes.count / 2 else { throw Malformed(reason: "truncated") }
                let units = try slice(start, count * 2)
                let code = stride(from: units.startIndex, to: units.endIndex, by: 2).map { UInt16(units[$0]) << 8 | UInt16(units[$0 + 1]) }
                return String(decoding: code, as: UTF16.self)
            case 0xA:
                let count = try length(info, after: &start)
                var values: [Any] = []
                for index in 0..<(try references(count, from: start)) {
                    let child = try integer(at: start + index * referenceSize, size: referenceSize)
                    values.append(try object(child, depth: depth + 1))
                }
                return values
            case 0xD:
                let count = try length(info, after: &start)
                guard count <= bytes.count else { throw Malformed(reason: "truncated") }
                _ = try references(count * 2, from: start)
                var values: [String: Any] = [:]
                for index in 0..<count {
                    let keyReference = try integer(at: start + index * referenceSize, size: referenceSize)
                    guard let key = try object(keyReference, depth: depth + 1) as? String else {
                        throw Malformed(reason: "a dictionary key that is not a string")
                    }
                    let valueReference = try integer(at: start + (count + index) * referenceSize, size: referenceSize)
                    values[key] = try object(valueReference, depth: depth + 1)
                }
                return values
            default:
                throw Malformed(reason: "an unsupported value (set, UID or unknown)")
            }
        }

        /// `count` references fit in the file from `start`.
        func references(_ count: Int, from start: Int) throws(Malformed) -> Int {
            guard count >= 0, count <= bytes.count / referenceSize else { throw Malformed(reason: "truncated") }
            _ = try slice(start, count * referenceSize)
            return count
        }
    }
}
