// The sqlite3_ functions pinwatch calls, forwarded to the system's
// libsqlite3 opened on first use (CLazyLibrary.h says how and why).
#include "CSQLite.h"

#include <CLazyLibrary.h>

// X(return type, name, (parameters), (arguments))
#define SQLITE_FUNCTIONS(X)                                                                             \
    X(int, sqlite3_open_v2, (const char *file, sqlite3 **db, int flags, const char *vfs),               \
      (file, db, flags, vfs))                                                                           \
    X(int, sqlite3_close_v2, (sqlite3 * db), (db))                                                      \
    X(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))                                      \
    X(const char *, sqlite3_errmsg, (sqlite3 * db), (db))                                               \
    X(int, sqlite3_exec,                                                                                \
      (sqlite3 * db, const char *sql, int (*callback)(void *, int, char **, char **), void *context,   \
       char **error),                                                                                   \
      (db, sql, callback, context, error))                                                              \
    X(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 * db), (db))                                   \
    X(int, sqlite3_prepare_v2,                                                                          \
      (sqlite3 * db, const char *sql, int length, sqlite3_stmt **statement, const char **tail),         \
      (db, sql, length, statement, tail))                                                               \
    X(int, sqlite3_bind_blob,                                                                           \
      (sqlite3_stmt * s, int i, const void *bytes, int n, void (*destructor)(void *)),                  \
      (s, i, bytes, n, destructor))                                                                     \
    X(int, sqlite3_bind_int64, (sqlite3_stmt * s, int i, sqlite3_int64 value), (s, i, value))           \
    X(int, sqlite3_bind_null, (sqlite3_stmt * s, int i), (s, i))                                        \
    X(int, sqlite3_bind_text,                                                                           \
      (sqlite3_stmt * s, int i, const char *text, int n, void (*destructor)(void *)),                   \
      (s, i, text, n, destructor))                                                                      \
    X(int, sqlite3_clear_bindings, (sqlite3_stmt * s), (s))                                             \
    X(int, sqlite3_step, (sqlite3_stmt * s), (s))                                                       \
    X(int, sqlite3_reset, (sqlite3_stmt * s), (s))                                                      \
    X(int, sqlite3_finalize, (sqlite3_stmt * s), (s))                                                   \
    X(const void *, sqlite3_column_blob, (sqlite3_stmt * s, int column), (s, column))                   \
    X(int, sqlite3_column_bytes, (sqlite3_stmt * s, int column), (s, column))                           \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * s, int column), (s, column))                 \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * s, int column), (s, column))          \
    X(int, sqlite3_column_type, (sqlite3_stmt * s, int column), (s, column))

PINWATCH_LAZY_LIBRARY(sqlite, "libsqlite3.so.0", "libsqlite3-0", SQLITE_FUNCTIONS)

const char *pinwatch_sqlite_load(void) { return pinwatch_lazy_load(&sqlite); }

#define FORWARD(...) PINWATCH_LAZY_FORWARD(sqlite, __VA_ARGS__)
SQLITE_FUNCTIONS(FORWARD)
