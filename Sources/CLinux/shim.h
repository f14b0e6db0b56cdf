#ifndef PINWATCH_CLINUX_SHIM_H
#define PINWATCH_CLINUX_SHIM_H

// Linux system calls Swift's Glibc module does not export: the probe's
// event loop multiplexes sockets with epoll and wakes itself with eventfd.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// Hooks start with nothing of the exporter's: their pipes are close-on-exec
// from birth, and posix_spawn closes every other descriptor in the child.
// glibc declares both only under _GNU_SOURCE, which Glibc is built without.
#include <spawn.h>
extern int pipe2(int pipedes[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// glibc's own heap figures (mallinfo2): a test shows that handing results
// from a probe loop's thread to a queue leaves nothing behind in the heap.
#include <malloc.h>

#endif
