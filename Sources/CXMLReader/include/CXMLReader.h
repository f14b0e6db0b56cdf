#ifndef PINWATCH_CXMLREADER_H
#define PINWATCH_CXMLREADER_H

// libxml2's streaming reader, the few calls pinwatch makes, behind names
// of its own: LazyXMLReader.c builds against libxml2's header (libxml2-dev)
// and opens the library on first use, so that a command that reads no
// network security config never loads it, nor the ICU it links. This
// header stays free of libxml2's, whose include directory only the C
// module is given.

/// An xmlTextReader.
typedef struct PinwatchXMLReader PinwatchXMLReader;

/// Loads libxml2 (once per process) and returns NULL, or a message naming
/// what is missing. Call it before any other function here.
const char *pinwatch_xml_load(void);

/// The first error the parser reported; message[0] == 0 while there is
/// none. (Its line is the parser's, pinwatch_xml_parser_line: the reader's
/// locator gives the line of the node being read instead.)
typedef struct {
    char message[256];
} PinwatchXMLError;

/// A reader over `size` bytes that never touches the network, never
/// substitutes entities nor loads a DTD, and collects its first error into
/// `error` instead of printing to stderr. `error` must outlive the reader.
PinwatchXMLReader *pinwatch_xml_reader(const char *bytes, int size, PinwatchXMLError *error);

// Node types (xmlReaderTypes; LazyXMLReader.c checks them against libxml2's).
enum {
    PINWATCH_XML_ELEMENT = 1,
    PINWATCH_XML_TEXT = 3,
    PINWATCH_XML_CDATA = 4,
    PINWATCH_XML_WHITESPACE = 13,
    PINWATCH_XML_SIGNIFICANT_WHITESPACE = 14,
    PINWATCH_XML_END_ELEMENT = 15,
};

// Each is the xmlTextReader function of the same meaning.
int pinwatch_xml_read(PinwatchXMLReader *reader);
int pinwatch_xml_node_type(PinwatchXMLReader *reader);
const unsigned char *pinwatch_xml_name(PinwatchXMLReader *reader);
const unsigned char *pinwatch_xml_value(PinwatchXMLReader *reader);
int pinwatch_xml_is_empty_element(PinwatchXMLReader *reader);
int pinwatch_xml_move_to_next_attribute(PinwatchXMLReader *reader);
int pinwatch_xml_move_to_element(PinwatchXMLReader *reader);
int pinwatch_xml_parser_line(PinwatchXMLReader *reader);
/// The source line of the node being read (xmlGetLineNo of the current node).
long pinwatch_xml_node_line(PinwatchXMLReader *reader);
void pinwatch_xml_free(PinwatchXMLReader *reader);

#endif
