"""docs/field-cases.md C15: the TLS handshake answered only after a delay, a TCP connection accepted and never
answered, and refused connections, set per listener through PUT /v1/listeners/{name}/conditions."""

from __future__ import annotations

import socket
import ssl
import time
import uuid

from livelib import CA_PEM, apns_headers, h2_client_for

BODY = b'{"aps":{"alert":"c15"}}'


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def set_conditions(server, **fields):
    response = server.put(f"/v1/listeners/{server.listener.name}/conditions", fields)
    assert response.status == 200, response.body
    return response.json


def tls_handshake_seconds(server, timeout: float) -> float:
    context = ssl.create_default_context(cafile=str(CA_PEM))
    context.set_alpn_protocols(["h2"])
    started = time.monotonic()
    with socket.create_connection((server.listener.host, server.listener.port), timeout=timeout) as raw:
        with context.wrap_socket(raw, server_hostname="localhost"):
            return time.monotonic() - started


def test_handshake_answered_after_the_delay(server_factory):
    server = server_factory()
    listed = set_conditions(server, handshakeDelayMs=1200)
    assert listed["conditions"]["handshakeDelayMs"] == 1200
    assert tls_handshake_seconds(server, timeout=5) >= 1.1
    set_conditions(server, handshakeDelayMs=0)
    assert tls_handshake_seconds(server, timeout=5) < 0.5
    client = h2_client_for(server.listener)
    try:
        assert client.request(apns_headers(tok()), BODY).status == 200
    finally:
        client.close()


def test_silent_listener_accepts_and_never_answers(server_factory):
    server = server_factory()
    set_conditions(server, silent=True)
    started = time.monotonic()
    try:
        tls_handshake_seconds(server, timeout=1.0)
        raise AssertionError("the handshake completed on a silent listener")
    except (TimeoutError, socket.timeout):
        pass
    assert time.monotonic() - started >= 0.9  # the TCP connect itself succeeded; nothing answered
    assert server.get_json("/v1/health")["status"] == "ok"  # the server is fine
    deadline = time.monotonic() + 3
    while server.stats()["connectionsOpen"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.stats()["connectionsOpen"] == 0, "the silent connection outlived its client"
    set_conditions(server, silent=False)
    assert tls_handshake_seconds(server, timeout=5) < 0.5


def test_refused_connections_for_a_while(server_factory):
    server = server_factory()
    set_conditions(server, refuseMs=1000)
    try:
        tls_handshake_seconds(server, timeout=2)
        raise AssertionError("a refused listener completed a handshake")
    except (ConnectionResetError, ssl.SSLError, ConnectionAbortedError, BrokenPipeError):
        pass
    time.sleep(1.1)
    assert tls_handshake_seconds(server, timeout=5) < 0.5  # the refusal ended by itself


def test_config_file_conditions_apply_from_start(server_factory):
    server = server_factory(config={"listeners": [{"name": "sandbox", "conditions": {"handshakeDelayMs": 800}}]})
    listed = server.get_json("/v1/listeners")["listeners"]
    assert listed[0]["name"] == "sandbox" and listed[0]["conditions"]["handshakeDelayMs"] == 800
    assert tls_handshake_seconds(server, timeout=5) >= 0.75
    set_conditions(server, handshakeDelayMs=0)  # the control API changes them as usual
    assert tls_handshake_seconds(server, timeout=5) < 0.5


def test_config_file_refusal_counts_from_start(server_factory):
    server = server_factory(config={"listeners": [{"name": "sandbox", "conditions": {"refuseMs": 60000}}]})
    try:
        tls_handshake_seconds(server, timeout=2)
        raise AssertionError("a listener refusing from start completed a handshake")
    except (ConnectionResetError, ssl.SSLError, ConnectionAbortedError, BrokenPipeError):
        pass
    refuse_until = server.get_json("/v1/listeners")["listeners"][0]["conditions"]["refuseUntil"]
    assert 50_000 < refuse_until - time.time() * 1000 <= 60_000
    set_conditions(server, refuseMs=0)
    assert tls_handshake_seconds(server, timeout=5) < 0.5


def test_unknown_listener_is_404(server):
    response = server.put("/v1/listeners/nope/conditions", {"silent": True})
    assert response.status == 404
    assert "nope" in response.json["error"]
