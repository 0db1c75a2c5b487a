"""Bulk connection commands (issue 13): POST /v1/connections/goaway|close|reset acts on every open
APNs connection at once, or on those of one listener (`?listener=NAME`), answers the ids it acted
on, and records one connection event per connection, as the per-connection commands do."""

from __future__ import annotations

import time
import uuid

import pytest

from livelib import FRAME_GOAWAY, apns_headers, h2_client_for

BODY = b'{"aps":{"alert":"bulk"}}'
SHUTDOWN = b'{"reason":"Shutdown"}'


@pytest.fixture
def mock(server_factory):
    return server_factory("--drain-timeout", "1")


def tok() -> str:
    return (uuid.uuid4().hex + uuid.uuid4().hex)[:64]


def connect(server):
    client = h2_client_for(server.listener, tls_bio=True)
    client.wait_for_settings()
    return client


def connection_id(server, client):
    host, port = client.sock.getsockname()[:2]
    mine = [c for c in server.get_json("/v1/connections")["connections"] if c["peer"] == f"{host}:{port}"]
    assert len(mine) == 1, mine
    return mine[0]["id"]


def command_events(server, kind):
    return [e for e in server.get_json("/v1/events")["events"] if e["kind"] == kind and e["origin"] == "command"]


def test_bulk_goaway_reaches_every_connection_at_once(mock):
    clients = [connect(mock) for _ in range(3)]
    try:
        for client in clients:
            assert client.request(apns_headers(tok()), BODY).status == 200
        ids = sorted(connection_id(mock, c) for c in clients)
        sent = time.monotonic()
        resp = mock.control("POST", "/v1/connections/goaway")
        assert (resp.status, resp.json) == (200, {"action": "goaway", "ids": ids})
        for client in clients:
            assert client.wait_closed(3)
            frames = [f for f in client.frames if f.type == FRAME_GOAWAY]
            assert len(frames) == 1, frames
            payload = frames[0].payload
            # last-stream-id 1 (the one stream answered), NO_ERROR, {"reason":"Shutdown"}
            assert (int.from_bytes(payload[0:4], "big"), int.from_bytes(payload[4:8], "big"), payload[8:]) == (
                1, 0, SHUTDOWN)
            assert client.close_kind == "eof"
        assert time.monotonic() - sent < 2.0, "every GOAWAY came at once, not one connection after another's drain"
        assert sorted(e["connectionId"] for e in command_events(mock, "goaway")) == ids
    finally:
        for client in clients:
            client.close()


@pytest.mark.parametrize("verb, close_kind", [("close", "eof"), ("reset", "reset")])
def test_bulk_close_and_reset(mock, verb, close_kind):
    clients = [connect(mock) for _ in range(2)]
    try:
        ids = sorted(connection_id(mock, c) for c in clients)
        resp = mock.control("POST", f"/v1/connections/{verb}?listener={mock.listener.name}")
        assert (resp.status, resp.json) == (200, {"action": verb, "ids": ids})
        for client in clients:
            assert client.wait_closed(3)
            assert client.close_kind == close_kind, (client.close_kind, client.close_error)
            assert [f for f in client.frames if f.type == FRAME_GOAWAY] == []
        assert sorted(e["connectionId"] for e in command_events(mock, verb)) == ids
        again = mock.control("POST", f"/v1/connections/{verb}")
        assert (again.status, again.json) == (200, {"action": verb, "ids": []})
    finally:
        for client in clients:
            client.close()


def test_bulk_command_for_an_unknown_listener_is_404(mock):
    client = connect(mock)
    try:
        resp = mock.control("POST", "/v1/connections/reset?listener=nope")
        assert resp.status == 404, resp.body
        assert client.request(apns_headers(tok()), BODY).status == 200, "the connection was left alone"
    finally:
        client.close()
