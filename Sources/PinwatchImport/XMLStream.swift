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
        defer { xmlFreeTextReader(reader) }
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { return }
            guard status > 0 else { throw parseFailure(error.pointee, reader: reader, file: file) }
            try deliver(reader, to: handle)
        }
    }

    private static func deliver(
        _ reader: xmlTextReaderPtr, to handle: (XMLEvent) throws(ClientSourceError) -> Void
    ) throws(ClientSourceError) {
        let line = Int(xmlGetLineNo(xmlTextReaderCurrentNode(reader)))
        switch xmlTextReaderNodeType(reader) {
        case Int32(PINWATCH_XML_ELEMENT):
            let name = text(xmlTextReaderConstName(reader))
            // Asked before moving to the attributes, which it is about.
            let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
            var attributes: [String: String] = [:]
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                attributes[text(xmlTextReaderConstName(reader))] = text(xmlTextReaderConstValue(reader))
            }
            xmlTextReaderMoveToElement(reader)
            try handle(.start(name: name, attributes: attributes, line: line))
            if isEmpty { try handle(.end(name: name)) }
        case Int32(PINWATCH_XML_TEXT), Int32(PINWATCH_XML_CDATA), Int32(PINWATCH_XML_SIGNIFICANT_WHITESPACE),
            Int32(PINWATCH_XML_WHITESPACE):
            try handle(.text(text(xmlTextReaderConstValue(reader)), line: line))
        case Int32(PINWATCH_XML_END_ELEMENT):
            try handle(.end(name: text(xmlTextReaderConstName(reader))))
        default:
            break
        }
    }

    private static func text(_ characters: UnsafePointer<xmlChar>?) -> String {
        characters.map { String(cString: $0) } ?? ""
    }

    /// The parser's own words (bounded by the C side; they quote the input,
    /// so sanitised) at the line where it stopped.
    private static func parseFailure(_ error: PinwatchXMLError, reader: xmlTextReaderPtr, file: String) -> ClientSourceError {
        var error = error
        let message = withUnsafeBytes(of: &error.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let line = Int(xmlTextReaderGetParserLineNumber(reader))
        return ClientSourceError(
            file: file, line: line > 0 ? line : nil,
            message: message.isEmpty ? "malformed XML" : "malformed XML: \(TerminalText.sanitize(message))")
    }
}
