#ifndef MOCKAPNS_CLIBEVENT_SHIM_H
#define MOCKAPNS_CLIBEVENT_SHIM_H
#include <event2/event.h>
#include <event2/thread.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

static inline evutil_socket_t mockapns_event_get_fd(struct event *ev) { return event_get_fd(ev); }
#endif
