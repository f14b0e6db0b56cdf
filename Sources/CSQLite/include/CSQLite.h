#ifndef PINWATCH_CSQLITE_H
#define PINWATCH_CSQLITE_H

#include <sqlite3.h>

#endif
