#ifndef PINWATCH_CLAZYLIBRARY_H
#define PINWATCH_CLAZYLIBRARY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/// A system library opened with dlopen on first use instead of by the loader
/// at process start: a command that never needs it (`check`, run by a
/// monitoring system every minute) does not pay to map and relocate it.
///
/// A module wrapping one (CSQLite, CNCurses, CXMLReader) lists the
/// functions it uses once, as X(return type, name, (parameters),
/// (arguments)), and gets from PINWATCH_LAZY_LIBRARY a table and, from
/// PINWATCH_LAZY_FORWARD, functions with the library's own names that call
/// through the table. The forwarders are hidden, so they never interpose on
/// the library's calls to itself, and defined against the declarations the
/// callers see (the library's header, or CXMLReader's own), so the compiler
/// checks every signature; a function used but not listed fails the link.
typedef struct {
    const char *soname;
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

/// For the forwarders: a caller that skipped pinwatch_lazy_load and its
/// error handling is a programming error, reported and aborted.
void pinwatch_lazy_require(PinwatchLazyLibrary *library);

#define PINWATCH_LAZY_NAME(result, name, parameters, arguments) #name,
#define PINWATCH_LAZY_FIELD(result, name, parameters, arguments) result(*name) parameters;

/// `functions` is the X-macro list; `variable` names the table. The union
/// lets the loader fill typed function pointers as the void pointers dlsym
/// returns, which POSIX guarantees can hold them.
#define PINWATCH_LAZY_LIBRARY(variable, sonameText, packageText, functions)              \
    static const char *const variable##Names[] = {functions(PINWATCH_LAZY_NAME)};        \
    static union {                                                                       \
        struct {                                                                         \
            functions(PINWATCH_LAZY_FIELD)                                               \
        } call;                                                                          \
        void *slots[sizeof variable##Names / sizeof variable##Names[0]];                 \
    } variable##Table;                                                                   \
    static PinwatchLazyLibrary variable = {                                              \
        .soname = sonameText,                                                            \
        .package = packageText,                                                          \
        .names = variable##Names,                                                        \
        .slots = variable##Table.slots,                                                  \
        .count = sizeof variable##Names / sizeof variable##Names[0],                     \
        .lock = PTHREAD_MUTEX_INITIALIZER,                                               \
    };

/// One hidden forwarder for a function of the table `variable`; a module
/// defines `#define FORWARD(...) PINWATCH_LAZY_FORWARD(its table, __VA_ARGS__)`
/// and applies its list to FORWARD.
#define PINWATCH_LAZY_FORWARD(variable, result, name, parameters, arguments)             \
    __attribute__((visibility("hidden"))) result name parameters {                       \
        pinwatch_lazy_require(&variable);                                                \
        return variable##Table.call.name arguments;                                      \
    }

#endif
