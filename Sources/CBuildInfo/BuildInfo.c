#include "CBuildInfo.h"

// scripts/package passes -DPINWATCH_STAMP and the directory of a generated
// PinwatchStamp.h: the commit (and a version override) live in a header
// only this file includes, so stamping a new commit recompiles this file
// and relinks, instead of rebuilding every module as a -D on the Swift
// command line would.
#ifdef PINWATCH_STAMP
#include "PinwatchStamp.h"
#endif

#ifndef PINWATCH_BUILD_VERSION
#define PINWATCH_BUILD_VERSION PINWATCH_VERSION
#endif

#ifndef PINWATCH_BUILD_COMMIT
#define PINWATCH_BUILD_COMMIT ""
#endif

const char *pinwatch_build_version(void) { return PINWATCH_BUILD_VERSION; }

const char *pinwatch_build_commit(void) { return PINWATCH_BUILD_COMMIT; }
