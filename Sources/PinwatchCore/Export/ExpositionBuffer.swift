import Foundation

/// Bytes of exposition text, appended without intermediate strings.
struct ExpositionBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    mutating func append(string: String) {
        var text = string
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding, written in place (a pin is 32 bytes).
    mutating func append(base64 data: [UInt8]) {
        let alphabet = Self.base64Alphabet
        var index = 0
        while index + 3 <= data.count {
            let chunk = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(alphabet[Int(chunk >> 6 & 63)])
            bytes.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = data.count - index
        if rest > 0 {
            let chunk = UInt32(data[index]) << 16 | (rest == 2 ? UInt32(data[index + 1]) << 8 : 0)
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(rest == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "="))
        }
    }

    mutating func append(integer: Int64) {
        if integer < 0 {
            bytes.append(UInt8(ascii: "-"))
            append(integer: -integer)
            return
        }
        if integer >= 10 { append(integer: integer / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(integer % 10))
    }

    /// Whole numbers as integers, others with three decimals.
    mutating func append(number value: Double) {
        let milli = (value * 1000).rounded()
        guard abs(milli) < 9e15 else {
            append(string: String(value))
            return
        }
        let scaled = Int64(milli)
        if scaled % 1000 == 0 {
            append(integer: scaled / 1000)
            return
        }
        if scaled < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = abs(scaled)
        append(integer: magnitude / 1000)
        bytes.append(UInt8(ascii: "."))
        let fraction = magnitude % 1000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// `# HELP` and `# TYPE` lines, made once per family by the table.
    mutating func family(_ family: MetricFamily) {
        append(family.header)
    }

    /// `name{labels,level="0",role="leaf"} number`: a series per chain level.
    mutating func levelSample(_ name: [UInt8], _ labels: [UInt8], _ level: LevelReport, _ number: Double) {
        append(name)
        append("{")
        append(labels)
        append(",level=\"")
        append(integer: Int64(level.level))
        append("\",role=\"")
        append(string: level.role.rawValue)
        append("\"} ")
        append(number: number)
        append("\n")
    }

    /// `name{labels,key="value"} number`; `labels` nil for a sample without any.
    mutating func sample(_ name: [UInt8], _ labels: [UInt8]?, _ key: StaticString?, _ value: String?, _ number: Double) {
        append(name)
        if let labels {
            append("{")
            append(labels)
            if let key, let value {
                if !labels.isEmpty { append(",") }
                append(key)
                append("=\"")
                append(string: value)
                append("\"")
            }
            append("}")
        }
        append(" ")
        append(number: number)
        append("\n")
    }
}
