#ifndef MOCKAPNS_CYAJL_SHIM_H
#define MOCKAPNS_CYAJL_SHIM_H
// yajl 2 (Debian libyajl-dev): an event-driven JSON parser, used to check push bodies without
// building a tree of Foundation objects.
#include <yajl/yajl_parse.h>

// yajl_config is variadic, which Swift cannot call: this sets the one option MockAPNs uses, so a
// handle can parse one body after another (PayloadScratch keeps one per connection).
static inline int mockapns_yajl_allow_multiple_values(yajl_handle handle) {
    return yajl_config(handle, yajl_allow_multiple_values, 1);
}
#endif
