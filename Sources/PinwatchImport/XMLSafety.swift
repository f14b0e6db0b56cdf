import Foundation
import PinwatchCore

/// What keeps an XML source from being a weapon: no DTD may declare
/// entities (billion laughs), and none is ever fetched (XXE).
enum XMLSafety {
    /// A network security config is elements, attributes, text and
    /// comments. Everything else is refused before the parser runs: a DTD
    /// or entity (billion laughs, XXE), the markup FoundationXML (the
    /// parser used at first) mishandled, reading a processing instruction
    /// without data through a null pointer (found by fuzzing), and the
    /// control bytes XML forbids.
    static func refuseDeclarations(in bytes: [UInt8], file: String) throws(ClientSourceError) {
        let declaration = Array("<?xml".utf8)
        var firstMarkup = true
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            try refuseControlBytes(in: bytes, range: index..<(index + 1), file: file)
            guard byte == UInt8(ascii: "<"), index + 1 < bytes.count else {
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if bytes[index...].starts(with: Array("<!--".utf8)) {
                // A comment may mention anything; its bytes are still checked.
                guard let close = bytes[(index + 4)...].firstRange(of: Array("-->".utf8)) else { return }
                try refuseControlBytes(in: bytes, range: index..<close.upperBound, file: file)
                index = close.upperBound
                continue
            }
            if next == UInt8(ascii: "?") {
                let isDeclaration =
                    firstMarkup && bytes[index...].starts(with: declaration)
                    && (index + 5 < bytes.count && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index + 5]))
                if !isDeclaration {
                    throw ClientSourceError(
                        file: file, line: lineNumber(at: index, in: bytes),
                        message: "processing instructions are not allowed (only the <?xml …?> declaration, first)")
                }
            } else if isNameStart(next) {
                index = try checkStartTag(in: bytes, at: index, file: file)
                firstMarkup = false
                continue
            } else if next == UInt8(ascii: "!") {
                let marker = bytes[index...].starts(with: Array("<!ENTITY".utf8)) ? "<!ENTITY" : "<!DOCTYPE"
                let known = bytes[index...].starts(with: Array(marker.utf8))
                throw ClientSourceError(
                    file: file, line: lineNumber(at: index, in: bytes),
                    message: known
                        ? "\(marker) is not allowed: entities are neither expanded nor fetched (remove the DTD)"
                        : "<! markup other than a comment is not allowed in a network security config")
            }
            firstMarkup = false
            index += 1
        }
    }

    /// No element of a network security config has more than two
    /// attributes; the rest of this room is for `xmlns:tools` and
    /// `tools:ignore`, which Android Studio adds.
    static let maximumAttributes = 16

    /// Counts the attributes of the start tag at `start` (each `=` outside a
    /// quoted value) in one pass, before libxml2 checks them for duplicates
    /// pairwise: 100,000 attributes on one element took 15 s of CPU.
    /// Returns where the tag ends; malformed tags are left to the parser.
    private static func checkStartTag(in bytes: [UInt8], at start: Int, file: String) throws(ClientSourceError) -> Int {
        var index = start + 1
        var quote: UInt8?
        var attributes = 0
        while index < bytes.count {
            let byte = bytes[index]
            // "<" is never part of a tag, not even of a quoted value.
            if byte == UInt8(ascii: "<") { break }
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "=") {
                attributes += 1
                if attributes > maximumAttributes {
                    throw ClientSourceError(
                        file: file, line: lineNumber(at: start, in: bytes),
                        message: "an element with more than \(maximumAttributes) attributes (Android's have at most two)")
                }
            } else if byte == UInt8(ascii: ">") {
                break
            }
            index += 1
        }
        try refuseControlBytes(in: bytes, range: start..<index, file: file)
        return index
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            || byte >= 0x80
    }

    private static func refuseControlBytes(in bytes: [UInt8], range: Range<Int>, file: String) throws(ClientSourceError) {
        guard let offset = range.first(where: { bytes[$0] < 0x20 && ![0x09, 0x0A, 0x0D].contains(bytes[$0]) }) else { return }
        throw ClientSourceError(
            file: file, line: lineNumber(at: offset, in: bytes),
            message: "control byte 0x\(String(bytes[offset], radix: 16)) is not allowed in XML")
    }

    /// Android compiles the file as UTF-8; FoundationXML (the parser used
    /// at first) trapped on an element name that is not (found by
    /// fuzzing), so anything else is refused before the parser runs.
    static func requireUTF8(_ bytes: [UInt8], file: String) throws(ClientSourceError) {
        guard String(validating: bytes, as: UTF8.self) == nil else { return }
        throw ClientSourceError(
            file: file, line: RegularFile.firstInvalidUTF8Line(bytes), message: "not UTF-8 text (Android reads this file as UTF-8)")
    }

    /// A plist's standard DOCTYPE is harmless, but an internal subset
    /// (`[ … ]`) or an entity is refused.
    static func refuseEntities(in bytes: [UInt8], file: String) throws(ClientSourceError) {
        if let offset = find(Array("<!ENTITY".utf8), in: bytes) {
            throw ClientSourceError(
                file: file, line: lineNumber(at: offset, in: bytes),
                message: "<!ENTITY is not allowed: entities are neither expanded nor fetched")
        }
    }

    static func describe(_ error: Error?) -> String {
        guard let error else { return "malformed XML" }
        let code = (error as NSError).code
        return "malformed XML (parser error \(code))"
    }

    static func lineNumber(at offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// Dates as the client formats write them.
enum ImportDates {
    /// `yyyy-MM-dd`, the start of that day in UTC: Android and TrustKit
    /// stop enforcing once the date is reached.
    static func day(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date
    }
}
