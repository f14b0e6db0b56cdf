internal import CXMLReader
import PinwatchCore

/// One step of a document, in order: an element's start (with its
/// attributes), its text, its end. An empty element (`<a/>`) starts and ends.
enum XMLEvent {
    case start(name: String, attributes: [String: String], line: Int)
    case text(String, line: Int)
    case end(name: String)
}

/// Reads XML with libxml2's streaming reader, loaded on first use, and hands
/// each event to `handle`; the first error, the parser's or the handler's,
/// ends the read. Callers refuse DTDs before this runs (XMLSafety); the
/// reader is also set never to substitute entities nor fetch anything.
enum XMLStream {
    static func read(
        _ bytes: [UInt8], file: String, handle: (XMLEvent) throws(ClientSourceError) -> Void
    ) throws(ClientSourceError) {
        if let missing = pinwatch_xml_load() {
            throw ClientSourceError(file: file, message: String(cString: missing))
        }
        // Both must stay put while the reader lives.
        let input = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(bytes.count, 1))
        defer { input.deallocate() }
        _ = input.initialize(from: bytes.lazy.map { CChar(bitPattern: $0) })
        let error = UnsafeMutablePointer<PinwatchXMLError>.allocate(capacity: 1)
        defer { error.deallocate() }
        error.initialize(to: PinwatchXMLError())
        guard let reader = pinwatch_xml_reader(input.baseAddress, Int32(bytes.count), error) else {
            throw ClientSourceError(file: file, message: "cannot start the XML parser")
        }
        defer { pinwatch_xml_free(reader) }
        while true {
            let status = pinwatch_xml_read(reader)
            if status == 0 { return }
            guard status > 0 else { throw parseFailure(error.pointee, reader: reader, file: file) }
            try deliver(reader, to: handle)
        }
    }

    private static func deliver(
        _ reader: OpaquePointer, to handle: (XMLEvent) throws(ClientSourceError) -> Void
    ) throws(ClientSourceError) {
        let line = pinwatch_xml_node_line(reader)
        switch pinwatch_xml_node_type(reader) {
        case Int32(PINWATCH_XML_ELEMENT):
            let name = text(pinwatch_xml_name(reader))
            // Asked before moving to the attributes, which it is about.
            let isEmpty = pinwatch_xml_is_empty_element(reader) == 1
            var attributes: [String: String] = [:]
            while pinwatch_xml_move_to_next_attribute(reader) == 1 {
                attributes[text(pinwatch_xml_name(reader))] = text(pinwatch_xml_value(reader))
            }
            pinwatch_xml_move_to_element(reader)
            try handle(.start(name: name, attributes: attributes, line: line))
            if isEmpty { try handle(.end(name: name)) }
        case Int32(PINWATCH_XML_TEXT), Int32(PINWATCH_XML_CDATA), Int32(PINWATCH_XML_SIGNIFICANT_WHITESPACE),
            Int32(PINWATCH_XML_WHITESPACE):
            try handle(.text(text(pinwatch_xml_value(reader)), line: line))
        case Int32(PINWATCH_XML_END_ELEMENT):
            try handle(.end(name: text(pinwatch_xml_name(reader))))
        default:
            break
        }
    }

    private static func text(_ characters: UnsafePointer<UInt8>?) -> String {
        characters.map { String(cString: $0) } ?? ""
    }

    /// The parser's own words (bounded by the C side; they quote the input,
    /// so sanitised) at the line where it stopped.
    private static func parseFailure(_ error: PinwatchXMLError, reader: OpaquePointer, file: String) -> ClientSourceError {
        var error = error
        let message = withUnsafeBytes(of: &error.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let line = Int(pinwatch_xml_parser_line(reader))
        return ClientSourceError(
            file: file, line: line > 0 ? line : nil,
            message: message.isEmpty ? "malformed XML" : "malformed XML: \(TerminalText.sanitize(message))")
    }
}
