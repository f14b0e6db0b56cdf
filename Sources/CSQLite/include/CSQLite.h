#ifndef PINWATCH_CSQLITE_H
#define PINWATCH_CSQLITE_H

#include <sqlite3.h>

/// Loads the system's libsqlite3 (once per process) and returns NULL, or a
/// message naming what is missing. Call it before any sqlite3_ function:
/// the ones pinwatch uses reach the library through it (LazySQLite.c), so
/// that commands keeping no history never load it.
const char *pinwatch_sqlite_load(void);

#endif
