#ifndef MOCKAPNS_CLIBEVENT_SHIM_H
#define MOCKAPNS_CLIBEVENT_SHIM_H
// System headers first: libevent's event-config.h defines _GNU_SOURCE, which would give
// fd_set a different shape here than in every other module (Dispatch, OpenSSL).
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <stdint.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/bufferevent.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

static inline evutil_socket_t mockapns_event_get_fd(struct event *ev) { return event_get_fd(ev); }
#endif
