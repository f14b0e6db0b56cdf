#ifndef PINWATCH_CLINUX_SHIM_H
#define PINWATCH_CLINUX_SHIM_H

// Linux system calls Swift's Glibc module does not export: the probe's
// event loop multiplexes sockets with epoll and wakes itself with eventfd.
#include <sys/epoll.h>
#include <sys/eventfd.h>

#endif
