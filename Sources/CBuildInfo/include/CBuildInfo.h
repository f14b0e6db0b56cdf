#ifndef PINWATCH_CBUILDINFO_H
#define PINWATCH_CBUILDINFO_H

/// The version from the VERSION file (Package.swift reads it), or the one
/// scripts/package stamped into a release build.
const char *pinwatch_build_version(void);

/// The commit scripts/package built from; empty for a developer's build.
const char *pinwatch_build_commit(void);

#endif
