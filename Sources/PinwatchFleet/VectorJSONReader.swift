import Foundation

/// Reads Prometheus' instant-vector answer straight from its bytes into
/// samples: no tree of the document (JSONSerialization's) and no
/// dictionary per object (JSONDecoder's keyed containers), which were
/// most of a fleet snapshot's time (Benchmarks/README.md).
/// Strict JSON (RFC 8259) everywhere, nesting bounded; anything else
/// ends the read as not JSON.
struct VectorJSONReader {
    /// What the envelope held; nil where a field was missing or not a string.
    struct Envelope {
        var status: String?
        var errorType: String?
        var error: String?
        var resultType: String?
        /// Nil where `data.result` is missing or not an array.
        var samples: [VectorSample]?
        var skipped = 0
    }

    struct Malformed: Error {}

    /// Deeper than any answer Prometheus writes.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let labelName: (String) -> String
    /// The label names of the sample read before, as it keeps them.
    private var sampleNames: [String] = []
    /// A label's text as read and as made into the sample's.
    struct Made {
        var raw: String
        var made: String
    }
    /// The names and values of the sample read before, by position.
    private var namesBefore: [Made] = []
    private var valuesBefore: [Made] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>, labelName: @escaping (String) -> String) {
        self.bytes = bytes
        self.labelName = labelName
    }

    /// `labelName` makes a label's name as the samples keep it; values are
    /// `PrometheusVector.bounded`.
    static func read(_ body: Data, labelName: @escaping (String) -> String) throws -> Envelope {
        try body.withUnsafeBytes { raw in
            var reader = VectorJSONReader(raw.bindMemory(to: UInt8.self), labelName: labelName)
            let envelope = try reader.envelope()
            reader.skipSpace()
            guard reader.index == reader.bytes.count else { throw Malformed() }
            return envelope
        }
    }

    // MARK: The answer's shape

    private mutating func envelope() throws -> Envelope {
        var envelope = Envelope()
        guard try startObject() else { throw Malformed() }
        try members(depth: 1) { reader, key in
            switch key {
            case "status": envelope.status = try reader.stringOrSkip(depth: 1)
            case "errorType": envelope.errorType = try reader.stringOrSkip(depth: 1)
            case "error": envelope.error = try reader.stringOrSkip(depth: 1)
            case "data": try reader.data(into: &envelope)
            default: try reader.skipValue(depth: 1)
            }
        }
        return envelope
    }

    private mutating func data(into envelope: inout Envelope) throws {
        envelope.resultType = nil
        envelope.samples = nil
        envelope.skipped = 0
        guard try startObject() else { return try skipValue(depth: 1) }
        try members(depth: 2) { reader, key in
            switch key {
            case "resultType": envelope.resultType = try reader.stringOrSkip(depth: 2)
            case "result":
                envelope.samples = nil
                envelope.skipped = 0
                guard try reader.startArray() else { return try reader.skipValue(depth: 2) }
                var samples: [VectorSample] = []
                var skipped = 0
                try reader.elements(depth: 3) { reader in
                    if let sample = try reader.sample() { samples.append(sample) } else { skipped += 1 }
                }
                envelope.samples = samples
                envelope.skipped = skipped
            default: try reader.skipValue(depth: 2)
            }
        }
    }

    /// One entry of `result`, or nil where it is not the documented shape
    /// (read past, whatever it holds).
    private mutating func sample() throws -> VectorSample? {
        guard try startObject() else {
            try skipValue(depth: 3)
            return nil
        }
        var labels: VectorLabels?
        var value: Double?
        var valueShaped = true
        try members(depth: 4) { reader, key in
            switch key {
            case "metric": labels = try reader.labels()
            case "value": value = try reader.pair(shaped: &valueShaped)
            default: try reader.skipValue(depth: 4)
            }
        }
        guard let labels, let value, valueShaped, PrometheusVector.valueRange.contains(value) else { return nil }
        return VectorSample(labels: labels, value: value)
    }

    /// `metric`: nil where it is not an object or has too many labels; a
    /// label whose value is not a string is left out.
    private mutating func labels() throws -> VectorLabels? {
        guard try startObject() else {
            try skipValue(depth: 4)
            return nil
        }
        // Room for as many values as the last sample had: an answer's
        // samples have about as many (a series' ten, a count's one).
        var values: [String] = []
        values.reserveCapacity(sampleNames.count)
        // The names are the sample before's while they are the same, and
        // then that array itself; made anew only where they differ.
        var names: [String] = []
        var sameNames = true
        var count = 0
        // Taken out while read, so that they are the only reference and grow in place.
        var namesMade = namesBefore
        var valuesMade = valuesBefore
        namesBefore = []
        valuesBefore = []
        defer {
            namesBefore = namesMade
            valuesBefore = valuesMade
        }
        func keep(_ name: String, _ value: String) {
            if sameNames, values.count < sampleNames.count, sampleNames[values.count] == name {
                values.append(value)
                return
            }
            if sameNames {
                names = Array(sampleNames[..<values.count])
                sameNames = false
            }
            if let at = names.firstIndex(of: name) {
                values[at] = value
            } else {
                names.append(name)
                values.append(value)
            }
        }
        // The members walked here, not through `members`: its closures
        // cost the snapshot several per cent of its CPU (Benchmarks/README.md).
        var open = true
        if try peek() == UInt8(ascii: "}") {
            index += 1
            open = false
        }
        while open {
            guard try peek() == UInt8(ascii: "\"") else { throw Malformed() }
            let name = try text(at: count, of: &namesMade, making: labelName)
            try expect(UInt8(ascii: ":"))
            if try peek() == UInt8(ascii: "\"") {
                let value = try text(at: count, of: &valuesMade, making: PrometheusVector.bounded)
                if count < PrometheusVector.maximumLabels { keep(name, value) }
            } else {
                try skipValue(depth: 5)
            }
            count += 1
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                open = false
            default: throw Malformed()
            }
        }
        if sameNames { names = values.count == sampleNames.count ? sampleNames : Array(sampleNames[..<values.count]) }
        sampleNames = names
        return count <= PrometheusVector.maximumLabels ? VectorLabels(names: names, values: values) : nil
    }

    /// The string at `index` (its opening quote) as `make` makes it, at
    /// `position` among its sample's labels: the one made for the sample
    /// before when the bytes are the same. An answer's samples are sorted
    /// by their labels, so a sample shares most of its neighbour's names and
    /// many of its values (the metric's name, `job`, `instance`, a pin's
    /// word, a reason): those are neither made, sanitised nor looked up again,
    /// and the samples share their storage.
    private mutating func text(at position: Int, of before: inout [Made], making make: (String) -> String) throws -> String {
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            // Escaped, malformed or cut short: read as any string is.
            let raw = try string()
            return remember(make(raw), from: raw, at: position, in: &before)
        }
        if position < before.count, Self.same(before[position].raw, bytes[start..<end]) {
            index = end + 1
            return before[position].made
        }
        let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        index = end + 1
        return remember(make(raw), from: raw, at: position, in: &before)
    }

    private func remember(_ made: String, from raw: String, at position: Int, in before: inout [Made]) -> String {
        guard position < PrometheusVector.maximumLabels else { return made }
        let known = Made(raw: raw, made: made)
        if position < before.count { before[position] = known } else if position == before.count { before.append(known) }
        return made
    }

    /// `raw`'s bytes are `bytes`.
    private static func same(_ raw: String, _ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let text = raw.utf8.span
        guard text.count == bytes.count else { return false }
        var offset = bytes.startIndex
        for index in text.indices {
            guard text[index] == bytes[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// `value`: `[timestamp, "number"]`; the timestamp is never read.
    private mutating func pair(shaped: inout Bool) throws -> Double? {
        guard try startArray() else {
            try skipValue(depth: 4)
            return nil
        }
        var count = 0
        var value: Double?
        try elements(depth: 5) { reader in
            count += 1
            guard count == 2 else { return try reader.skipValue(depth: 5) }
            value = try reader.stringOrSkip(depth: 5).flatMap(Double.init)
        }
        shaped = count == 2
        return value
    }

    // MARK: JSON

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func peek() throws -> UInt8 {
        skipSpace()
        guard index < bytes.count else { throw Malformed() }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try peek() == byte else { throw Malformed() }
        index += 1
    }

    /// True and past the `{` when an object starts here.
    private mutating func startObject() throws -> Bool {
        guard try peek() == UInt8(ascii: "{") else { return false }
        index += 1
        return true
    }

    private mutating func startArray() throws -> Bool {
        guard try peek() == UInt8(ascii: "[") else { return false }
        index += 1
        return true
    }

    /// The members of an object whose `{` was read, each key handed to
    /// `member`, which reads its value.
    private mutating func members(depth: Int, _ member: (inout VectorJSONReader, String) throws -> Void) throws {
        guard depth <= Self.maximumDepth else { throw Malformed() }
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw Malformed()
            }
        }
    }

    /// The elements of an array whose `[` was read, each read by `element`.
    private mutating func elements(depth: Int, _ element: (inout VectorJSONReader) throws -> Void) throws {
        guard depth <= Self.maximumDepth else { throw Malformed() }
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw Malformed()
            }
        }
    }

    /// A string's text, or nil for any other value, read past.
    private mutating func stringOrSkip(depth: Int) throws -> String? {
        guard try peek() == UInt8(ascii: "\"") else {
            try skipValue(depth: depth)
            return nil
        }
        return try string()
    }

    private mutating func skipValue(depth: Int) throws {
        switch try peek() {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"):
            index += 1
            try members(depth: depth + 1) { reader, _ in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            try elements(depth: depth + 1) { reader in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw Malformed() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Malformed() }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws {
        func digits(_ reader: inout VectorJSONReader) throws {
            let start = reader.index
            while reader.index < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.index]) { reader.index += 1 }
            guard reader.index > start else { throw Malformed() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw Malformed() }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { try digits(&self) }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits(&self)
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try digits(&self)
        }
    }

    /// A string at `index` (its opening quote), unescaped; invalid UTF-8
    /// and lone surrogates become U+FFFD.
    private mutating func string() throws -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw Malformed() }
            index += 1
        }
        throw Malformed()
    }

    private mutating func escapedString(from start: Int) throws -> String {
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Malformed() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        let mark = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = mark
                        }
                    }
                    out.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                default: throw Malformed()
                }
            default:
                guard byte >= 0x20 else { throw Malformed() }
                out.append(byte)
            }
        }
        throw Malformed()
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw Malformed() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
