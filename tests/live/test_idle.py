"""Idle connections (docs/apns-behaviour.md §9): kept by default; with --idle-timeout ended by a TCP reset
(as observed from APNs) or, with --idle-action goaway, by GOAWAY {"reason":"IdleTimeout"}."""

from __future__ import annotations

import time
import uuid

from livelib import apns_headers, h2_client_for

BODY = b'{"aps":{"alert":"idle"}}'


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def test_idle_connection_gets_goaway_idle_timeout(server_factory):
    server = server_factory("--idle-timeout", "0.5", "--idle-action", "goaway")
    client = h2_client_for(server.listener, tls_bio=True)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        started = time.monotonic()
        client.pump(lambda: client.goaway is not None, timeout=3)
        waited = time.monotonic() - started
        assert 0.35 <= waited < 2.0, waited
        assert client.goaway.error_code == 0
        assert client.goaway.additional_data == b'{"reason":"IdleTimeout"}'
        assert client.wait_closed(2)
    finally:
        client.close()


def test_idle_connection_is_reset_by_default_action(server_factory):
    server = server_factory("--idle-timeout", "0.5")
    client = h2_client_for(server.listener, tls_bio=True)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        assert client.wait_closed(3)
        assert client.close_kind == "reset", (client.close_kind, client.close_error)
        assert client.goaway is None
    finally:
        client.close()


def test_requests_keep_a_connection_alive(server_factory):
    server = server_factory("--idle-timeout", "0.6", "--idle-action", "goaway")
    client = h2_client_for(server.listener)
    try:
        for _ in range(6):  # 1.5 s of traffic, a request every 0.25 s
            assert client.request(apns_headers(tok()), BODY).status == 200
            time.sleep(0.25)
        assert client.goaway is None and not client.closed
    finally:
        client.close()


def test_connections_are_kept_without_idle_timeout(server):
    client = h2_client_for(server.listener)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        time.sleep(1.0)
        assert client.goaway is None and not client.closed
        assert client.request(apns_headers(tok()), BODY).status == 200
    finally:
        client.close()
