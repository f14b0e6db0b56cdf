// libxml2's reader functions, forwarded to the system's libxml2 opened on
// first use (CLazyLibrary.h says how and why).
#include "CXMLReader.h"

#include <CLazyLibrary.h>
#include <stdio.h>
#include <string.h>

typedef void (*ErrorHandler)(void *context, const char *message, int severity, xmlTextReaderLocatorPtr locator);

// X(return type, name, (parameters), (arguments))
#define XML_FUNCTIONS(X)                                                                                \
    X(int, xmlTextReaderRead, (xmlTextReaderPtr reader), (reader))                                      \
    X(int, xmlTextReaderNodeType, (xmlTextReaderPtr reader), (reader))                                  \
    X(const xmlChar *, xmlTextReaderConstName, (xmlTextReaderPtr reader), (reader))                     \
    X(const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr reader), (reader))                    \
    X(int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr reader), (reader))                            \
    X(int, xmlTextReaderMoveToNextAttribute, (xmlTextReaderPtr reader), (reader))                       \
    X(int, xmlTextReaderMoveToElement, (xmlTextReaderPtr reader), (reader))                             \
    X(int, xmlTextReaderGetParserLineNumber, (xmlTextReaderPtr reader), (reader))                       \
    X(xmlNodePtr, xmlTextReaderCurrentNode, (xmlTextReaderPtr reader), (reader))                        \
    X(long, xmlGetLineNo, (const struct _xmlNode *node), (node))                                        \
    X(void, xmlFreeTextReader, (xmlTextReaderPtr reader), (reader))

// Used only here, by pinwatch_xml_reader.
#define XML_SETUP_FUNCTIONS(X)                                                                          \
    X(xmlTextReaderPtr, xmlReaderForMemory,                                                             \
      (const char *buffer, int size, const char *url, const char *encoding, int options),              \
      (buffer, size, url, encoding, options))                                                           \
    X(void, xmlTextReaderSetErrorHandler, (xmlTextReaderPtr reader, ErrorHandler handler, void *context), \
      (reader, handler, context))

#define XML_SYMBOLS(X) XML_FUNCTIONS(X) XML_SETUP_FUNCTIONS(X)

PINWATCH_LAZY_LIBRARY(xml, "libxml2.so.2", "libxml2", XML_SYMBOLS)

const char *pinwatch_xml_load(void) { return pinwatch_lazy_load(&xml); }

#define FORWARD(...) PINWATCH_LAZY_FORWARD(xml, __VA_ARGS__)
XML_FUNCTIONS(FORWARD)

// parserOptions in parser.h.
enum { noErrorReports = 1 << 5, noWarningReports = 1 << 6, noNetwork = 1 << 11 };

static void collectFirstError(void *context, const char *message, int severity, xmlTextReaderLocatorPtr locator) {
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

xmlTextReaderPtr pinwatch_xml_reader(const char *bytes, int size, PinwatchXMLError *error) {
    pinwatch_lazy_require(&xml);
    error->message[0] = 0;
    // Entities stay unsubstituted (no XML_PARSE_NOENT) and no DTD is loaded
    // (no XML_PARSE_DTDLOAD): the defaults; nothing is fetched.
    xmlTextReaderPtr reader = xmlTable.call.xmlReaderForMemory(bytes, size, NULL, NULL,
                                                               noNetwork | noErrorReports | noWarningReports);
    if (reader != NULL) xmlTable.call.xmlTextReaderSetErrorHandler(reader, collectFirstError, error);
    return reader;
}
