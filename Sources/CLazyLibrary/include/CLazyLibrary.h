#ifndef PINWATCH_CLAZYLIBRARY_H
#define PINWATCH_CLAZYLIBRARY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/// A system library opened with dlopen on first use instead of by the loader
/// at process start: a command that never needs it (`check`, run by a
/// monitoring system every minute) does not pay to map and relocate it and
/// what it links (Benchmarks/README.md, "Performance rule review").
///
/// A module wrapping one (CXMLReader) includes the library's own header,
/// lists the functions it uses once, as X(name), and gets from
/// PINWATCH_LAZY_LIBRARY a table of pointers typed from that header's
/// declarations, so the compiler checks every call.
typedef struct {
    /// Tried in order; NULL ends the list. A library that renamed its
    /// soname (libxml2 2.14: libxml2.so.16) is found under either name.
    const char *const *sonames;
    const char *package;
    const char *const *names;
    void **slots;
    size_t count;
    pthread_mutex_t lock;
    atomic_int state;
    char failure[512];
} PinwatchLazyLibrary;

/// Opens the library and resolves every name, once; NULL, or why not.
const char *pinwatch_lazy_load(PinwatchLazyLibrary *library);

/// For the wrappers: a caller that skipped pinwatch_lazy_load and its
/// error handling is a programming error, reported and aborted.
void pinwatch_lazy_require(PinwatchLazyLibrary *library);

#define PINWATCH_LAZY_NAME(name) #name,
#define PINWATCH_LAZY_FIELD(name) __typeof__(name) *name;

/// `functions` is the X-macro list; `variable` names the table; the
/// sonames follow, most recent first. The union lets the loader fill typed
/// function pointers as the void pointers dlsym returns, which POSIX
/// guarantees can hold them.
#define PINWATCH_LAZY_LIBRARY(variable, packageText, functions, ...)                     \
    static const char *const variable##Sonames[] = {__VA_ARGS__, NULL};                  \
    static const char *const variable##Names[] = {functions(PINWATCH_LAZY_NAME)};        \
    static union {                                                                       \
        struct {                                                                         \
            functions(PINWATCH_LAZY_FIELD)                                               \
        } call;                                                                          \
        void *slots[sizeof variable##Names / sizeof variable##Names[0]];                 \
    } variable##Table;                                                                   \
    static PinwatchLazyLibrary variable = {                                              \
        .sonames = variable##Sonames,                                                    \
        .package = packageText,                                                          \
        .names = variable##Names,                                                        \
        .slots = variable##Table.slots,                                                  \
        .count = sizeof variable##Names / sizeof variable##Names[0],                     \
        .lock = PTHREAD_MUTEX_INITIALIZER,                                               \
    };

#endif
