#!/usr/bin/env python3
"""Sends pushes that differ from one another in device token and in payload, over HTTP/2 and TLS.

h2load sends one body file for every request, so its shapes always repeat the payload; a sender
notifying many devices sends a different body to each. This generator is for instruction counts
(bench/callgrind.sh), not for speed: Python's h2 is far slower than h2load, and callgrind counts
what the server does per request whatever the rate.

    bench/varied.py --port PORT --tokens FILE [-n 10000] [-c 1] [-m 100]

Each request is POST /3/device/<token i mod len(tokens)> with `apns-topic: com.example.app`,
`apns-push-type: alert` and the body {"aps":{"alert":"hello <i>"},"n":<i>} (26-40 bytes).
Prints one line, `requests=N ok=N statuses=...`; exits 1 when a response is not 200 or a stream
is reset, so a count over failed requests is never reported.
"""

import argparse
import collections
import socket
import ssl
import sys

import h2.config
import h2.connection
import h2.events


def body(i):
    return ('{"aps":{"alert":"hello %d"},"n":%d}' % (i, i)).encode()


class Connection:
    """One TLS connection with up to `m` streams in flight."""

    def __init__(self, port, m):
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["h2"])
        raw = socket.create_connection(("127.0.0.1", port))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = context.wrap_socket(raw, server_hostname="localhost")
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        self.sock.sendall(self.h2.data_to_send())
        self.m = m
        self.open = {}
        self.statuses = collections.Counter()
        self.resets = 0

    def send(self, i, token):
        stream = self.h2.get_next_available_stream_id()
        data = body(i)
        self.h2.send_headers(stream, [
            (":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1"),
            (":path", "/3/device/" + token), ("apns-topic", "com.example.app"),
            ("apns-push-type", "alert"), ("content-length", str(len(data))),
        ])
        self.h2.send_data(stream, data, end_stream=True)
        self.open[stream] = None
        self.sock.sendall(self.h2.data_to_send())

    def read(self):
        """Reads once and handles what came; returns the number of streams that ended."""
        data = self.sock.recv(65536)
        if not data:
            raise SystemExit("error: the server closed the connection")
        ended = 0
        for event in self.h2.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(":status")
                self.open[event.stream_id] = status
            elif isinstance(event, h2.events.DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.statuses[self.open.pop(event.stream_id, None)] += 1
                ended += 1
            elif isinstance(event, h2.events.StreamReset):
                self.open.pop(event.stream_id, None)
                self.resets += 1
                ended += 1
        pending = self.h2.data_to_send()
        if pending:
            self.sock.sendall(pending)
        return ended


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", required=True, help="file of device tokens, one per line")
    parser.add_argument("-n", type=int, default=10000, help="requests in all (default 10000)")
    parser.add_argument("-c", type=int, default=1, help="connections (default 1)")
    parser.add_argument("-m", type=int, default=100, help="streams in flight per connection (default 100)")
    a = parser.parse_args()
    with open(a.tokens, encoding="ascii") as f:
        tokens = [line.strip() for line in f if line.strip()]
    if not tokens:
        raise SystemExit("error: no device tokens in " + a.tokens)
    connections = [Connection(a.port, a.m) for _ in range(a.c)]
    sent = 0
    done = 0
    while done < a.n:
        for connection in connections:
            while sent < a.n and len(connection.open) < connection.m:
                connection.send(sent, tokens[sent % len(tokens)])
                sent += 1
            if connection.open:
                done += connection.read()
    statuses = collections.Counter()
    resets = 0
    for connection in connections:
        statuses.update(connection.statuses)
        resets += connection.resets
        connection.sock.close()
    ok = statuses.get("200", 0)
    print("requests=%d ok=%d resets=%d statuses=%s" % (done, ok, resets, dict(statuses)))
    return 0 if ok == a.n else 1


if __name__ == "__main__":
    sys.exit(main())
