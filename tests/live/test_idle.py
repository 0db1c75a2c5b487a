"""Idle connections (docs/apns-behaviour.md §9): kept by default; with --idle-timeout ended by a TCP reset
(as observed from APNs) or, with --idle-action goaway, by GOAWAY {"reason":"IdleTimeout"}."""

from __future__ import annotations

import time
import uuid

from livelib import FRAME_PING, apns_headers, h2_client_for, raw_frame

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


def test_idle_connection_is_blackholed_with_idle_action_blackhole(server_factory):
    """Issue 13: after the idle timeout nothing is answered any more (a PING gets no ACK) and the
    socket stays open; before it, PING is acknowledged."""
    server = server_factory("--idle-timeout", "0.8", "--idle-action", "blackhole")
    client = h2_client_for(server.listener, tls_bio=True)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
        started = time.monotonic()
        client._raw_write(raw_frame(FRAME_PING, 0, 0, b"early..."))
        client.pump(lambda: b"early..." in client.ping_acks, timeout=0.5)
        assert time.monotonic() - started < 0.5
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not [
            e for e in server.get_json("/v1/events")["events"] if e["kind"] == "blackhole"
        ]:
            time.sleep(0.02)
        waited = time.monotonic() - started
        assert 0.6 <= waited < 2.0, waited
        events = [e for e in server.get_json("/v1/events")["events"] if e["kind"] == "blackhole"]
        assert [e["origin"] for e in events] == ["idleTimeout"], events
        seen = len(client.frames)
        client._raw_write(raw_frame(FRAME_PING, 0, 0, b"late...."))
        try:
            client.pump(lambda: len(client.frames) > seen, timeout=1.0)
            raise AssertionError(f"a frame came from a blackholed connection: {client.frames[seen:]}")
        except TimeoutError:
            pass
        assert not client.closed
        assert len(server.get_json("/v1/connections")["connections"]) == 1
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
