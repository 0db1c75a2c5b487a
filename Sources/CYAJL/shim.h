#ifndef MOCKAPNS_CYAJL_SHIM_H
#define MOCKAPNS_CYAJL_SHIM_H
// yajl 2 (Debian libyajl-dev): an event-driven JSON parser, used to check push bodies without
// building a tree of Foundation objects.
#include <yajl/yajl_parse.h>
#endif
