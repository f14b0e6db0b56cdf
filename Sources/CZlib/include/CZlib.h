#ifndef PINWATCH_CZLIB_H
#define PINWATCH_CZLIB_H

#include <zlib.h>

/* deflateInit2 is a macro (it passes the header's version and the
   stream's size), which Swift cannot call. */
static inline int pinwatch_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
