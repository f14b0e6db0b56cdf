import Foundation
import PinwatchCore

/// An Info.plist or a JSON export of one, parsed once for every plist
/// format (TrustKit, ATS).
enum PropertyListDocument {
    static func isBinary(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array("bplist".utf8)) }

    /// - Parameter binary: whether a binary plist is read; where it is not,
    ///   the error gives the command that converts it.
    static func read(_ bytes: [UInt8], file: String, binary: Bool) throws(ClientSourceError) -> Any {
        if isBinary(bytes) {
            guard binary else {
                throw ClientSourceError(
                    file: file,
                    message: "a binary property list: convert it first (plutil -convert xml1 FILE, or python3 -m plistlib)")
            }
            do {
                return try BinaryPropertyList.read(bytes)
            } catch {
                throw ClientSourceError(file: file, message: "malformed binary property list: \(error.reason)")
            }
        }
        let firstByte = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if firstByte == UInt8(ascii: "{") {
            do {
                return try JSONSerialization.jsonObject(with: Data(bytes))
            } catch {
                throw ClientSourceError(file: file, message: "malformed JSON: \(detail(error))")
            }
        }
        try XMLSafety.refuseEntities(in: bytes, file: file)
        return try propertyList(bytes, file: file)
    }

    private static func propertyList(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> Any {
        do {
            return try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw ClientSourceError(file: file, message: "malformed property list: \(detail(error))")
        }
    }

    /// The parser's own words (they carry the line), else its code.
    private static func detail(_ error: Error) -> String {
        let info = (error as NSError).userInfo
        if let debug = info["NSDebugDescription"] as? String { return EchoedInput.shortened(debug) }
        return "error \((error as NSError).code)"
    }
}
