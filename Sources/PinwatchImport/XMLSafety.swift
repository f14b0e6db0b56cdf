import Foundation
import PinwatchCore

/// What keeps an XML source from being a weapon: no DTD may declare
/// entities (billion laughs), and none is ever fetched (XXE).
enum XMLSafety {
    /// A network security config has no use for a DTD, so any internal
    /// subset or entity declaration is refused before the parser runs.
    static func refuseDeclarations(in bytes: [UInt8], file: String) throws(ClientSourceError) {
        let found = ["<!DOCTYPE", "<!ENTITY"].compactMap { marker in find(Array(marker.utf8), in: bytes).map { (marker, $0) } }
        if let (marker, offset) = found.min(by: { $0.1 < $1.1 }) {
            throw ClientSourceError(
                file: file, line: lineNumber(at: offset, in: bytes),
                message: "\(marker) is not allowed: entities are neither expanded nor fetched (remove the DTD)")
        }
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
