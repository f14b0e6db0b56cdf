// libxml2's reader functions, called through a table filled from the
// system's libxml2 opened on first use (CLazyLibrary.h says how and why).
#include "CXMLReader.h"

#include <CLazyLibrary.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <string.h>

#define XML_FUNCTIONS(X)                                                                                \
    X(xmlReaderForMemory)                                                                               \
    X(xmlTextReaderSetErrorHandler)                                                                     \
    X(xmlTextReaderRead)                                                                                \
    X(xmlTextReaderNodeType)                                                                            \
    X(xmlTextReaderConstName)                                                                           \
    X(xmlTextReaderConstValue)                                                                          \
    X(xmlTextReaderIsEmptyElement)                                                                      \
    X(xmlTextReaderMoveToNextAttribute)                                                                 \
    X(xmlTextReaderMoveToElement)                                                                       \
    X(xmlTextReaderGetParserLineNumber)                                                                 \
    X(xmlTextReaderCurrentNode)                                                                         \
    X(xmlGetLineNo)                                                                                     \
    X(xmlFreeTextReader)

// libxml2 2.14 renamed its soname; distributions before it ship .so.2.
PINWATCH_LAZY_LIBRARY(xml, "libxml2", XML_FUNCTIONS, "libxml2.so.16", "libxml2.so.2")

_Static_assert(PINWATCH_XML_ELEMENT == XML_READER_TYPE_ELEMENT, "node type");
_Static_assert(PINWATCH_XML_TEXT == XML_READER_TYPE_TEXT, "node type");
_Static_assert(PINWATCH_XML_CDATA == XML_READER_TYPE_CDATA, "node type");
_Static_assert(PINWATCH_XML_WHITESPACE == XML_READER_TYPE_WHITESPACE, "node type");
_Static_assert(PINWATCH_XML_SIGNIFICANT_WHITESPACE == XML_READER_TYPE_SIGNIFICANT_WHITESPACE, "node type");
_Static_assert(PINWATCH_XML_END_ELEMENT == XML_READER_TYPE_END_ELEMENT, "node type");

const char *pinwatch_xml_load(void) { return pinwatch_lazy_load(&xml); }

static xmlTextReaderPtr opened(PinwatchXMLReader *reader) {
    pinwatch_lazy_require(&xml);
    return (xmlTextReaderPtr)reader;
}

static void collectFirstError(void *context, const char *message, xmlParserSeverities severity,
                              xmlTextReaderLocatorPtr locator) {
    (void)severity;
    (void)locator;
    PinwatchXMLError *error = context;
    if (error->message[0] != 0 || message == NULL) return;
    snprintf(error->message, sizeof error->message, "%s", message);
    // libxml2's messages end with a newline.
    size_t length = strlen(error->message);
    while (length > 0 && (error->message[length - 1] == '\n' || error->message[length - 1] == ' ')) {
        error->message[--length] = 0;
    }
}

PinwatchXMLReader *pinwatch_xml_reader(const char *bytes, int size, PinwatchXMLError *error) {
    pinwatch_lazy_require(&xml);
    error->message[0] = 0;
    // Entities stay unsubstituted (no XML_PARSE_NOENT) and no DTD is loaded
    // (no XML_PARSE_DTDLOAD): the defaults; nothing is fetched.
    xmlTextReaderPtr reader = xmlTable.call.xmlReaderForMemory(bytes, size, NULL, NULL,
                                                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (reader != NULL) xmlTable.call.xmlTextReaderSetErrorHandler(reader, collectFirstError, error);
    return (PinwatchXMLReader *)reader;
}

int pinwatch_xml_read(PinwatchXMLReader *reader) { return xmlTable.call.xmlTextReaderRead(opened(reader)); }
int pinwatch_xml_node_type(PinwatchXMLReader *reader) { return xmlTable.call.xmlTextReaderNodeType(opened(reader)); }
const unsigned char *pinwatch_xml_name(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderConstName(opened(reader));
}
const unsigned char *pinwatch_xml_value(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderConstValue(opened(reader));
}
int pinwatch_xml_is_empty_element(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderIsEmptyElement(opened(reader));
}
int pinwatch_xml_move_to_next_attribute(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderMoveToNextAttribute(opened(reader));
}
int pinwatch_xml_move_to_element(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderMoveToElement(opened(reader));
}
int pinwatch_xml_parser_line(PinwatchXMLReader *reader) {
    return xmlTable.call.xmlTextReaderGetParserLineNumber(opened(reader));
}
long pinwatch_xml_node_line(PinwatchXMLReader *reader) {
    xmlTextReaderPtr opened_reader = opened(reader);
    return xmlTable.call.xmlGetLineNo(xmlTable.call.xmlTextReaderCurrentNode(opened_reader));
}
void pinwatch_xml_free(PinwatchXMLReader *reader) { xmlTable.call.xmlFreeTextReader(opened(reader)); }
