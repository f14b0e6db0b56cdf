#ifndef PINWATCH_CXMLREADER_H
#define PINWATCH_CXMLREADER_H

// libxml2's streaming reader (xmlreader.h), the few functions pinwatch
// uses, declared here so that building needs no libxml2-dev: the system's
// libxml2 is opened on first use (LazyXMLReader.c), so that a command that
// reads no network security config never loads it, nor the ICU it links.

typedef struct _xmlTextReader *xmlTextReaderPtr;
typedef struct _xmlNode *xmlNodePtr;
typedef void *xmlTextReaderLocatorPtr;
typedef unsigned char xmlChar;

/// Loads libxml2 (once per process) and returns NULL, or a message naming
/// what is missing. Call it before any other function here.
const char *pinwatch_xml_load(void);

/// The first error the parser reported; message[0] == 0 while there is
/// none. (Its line is the parser's, xmlTextReaderGetParserLineNumber: the
/// reader's locator gives the line of the node being read instead.)
typedef struct {
    char message[256];
} PinwatchXMLError;

/// A reader over `size` bytes that never touches the network, never
/// substitutes entities nor loads a DTD, and collects its first error into
/// `error` instead of printing to stderr. `error` must outlive the reader.
xmlTextReaderPtr pinwatch_xml_reader(const char *bytes, int size, PinwatchXMLError *error);

// Node types (xmlReaderTypes).
enum {
    PINWATCH_XML_ELEMENT = 1,
    PINWATCH_XML_TEXT = 3,
    PINWATCH_XML_CDATA = 4,
    PINWATCH_XML_WHITESPACE = 13,
    PINWATCH_XML_SIGNIFICANT_WHITESPACE = 14,
    PINWATCH_XML_END_ELEMENT = 15,
};

int xmlTextReaderRead(xmlTextReaderPtr reader);
int xmlTextReaderNodeType(xmlTextReaderPtr reader);
const xmlChar *xmlTextReaderConstName(xmlTextReaderPtr reader);
const xmlChar *xmlTextReaderConstValue(xmlTextReaderPtr reader);
int xmlTextReaderIsEmptyElement(xmlTextReaderPtr reader);
int xmlTextReaderMoveToNextAttribute(xmlTextReaderPtr reader);
int xmlTextReaderMoveToElement(xmlTextReaderPtr reader);
int xmlTextReaderGetParserLineNumber(xmlTextReaderPtr reader);
xmlNodePtr xmlTextReaderCurrentNode(xmlTextReaderPtr reader);
long xmlGetLineNo(const struct _xmlNode *node);
void xmlFreeTextReader(xmlTextReaderPtr reader);

#endif
