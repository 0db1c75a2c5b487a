#ifndef MOCKAPNS_CNGHTTP2_SHIM_H
#define MOCKAPNS_CNGHTTP2_SHIM_H
// Debian 12 ships nghttp2 1.52: the v1 API (ssize_t) is the one we use.
#include <nghttp2/nghttp2.h>
#endif
