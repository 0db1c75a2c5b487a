"""Frame-level HTTP/2 behaviour with hyper-h2: SETTINGS, PING, ALPN, response framing, graceful stop."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from livelib import (
    FLAG_ACK,
    FLAG_END_HEADERS,
    FLAG_END_STREAM,
    FRAME_DATA,
    FRAME_GOAWAY,
    FRAME_HEADERS,
    FRAME_PING,
    FRAME_SETTINGS,
    UPPER_UUID,
    apns_headers,
    h2_client_for,
    parse_settings,
)

HEADER_TABLE_SIZE, MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_HEADER_LIST_SIZE = 1, 3, 4, 5, 6
APPLE_SETTINGS = {
    HEADER_TABLE_SIZE: 4096,
    MAX_CONCURRENT_STREAMS: 1000,
    INITIAL_WINDOW_SIZE: 65535,
    MAX_FRAME_SIZE: 16384,
    MAX_HEADER_LIST_SIZE: 8000,
}
STREAM_FRAMES = (FRAME_DATA, FRAME_HEADERS, 3, 9)  # DATA, HEADERS, RST_STREAM, CONTINUATION


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def stream_frames(client, sid):
    return [f for f in client.frames_for(sid) if f.type in STREAM_FRAMES]


def test_first_settings_frame(server):
    client = h2_client_for(server.listener)
    try:
        client.wait_for_settings()
        first = client.frames[0]
        assert first.type == FRAME_SETTINGS and not first.flags & FLAG_ACK, client.frames[:3]
        settings = parse_settings(first.payload)
        values = dict(settings)
        assert len(values) == len(settings), f"a setting repeated: {settings}"
        for key, expected in APPLE_SETTINGS.items():
            assert values.get(key) == expected, f"setting {key}: {values.get(key)} != {expected} in {settings}"
        # our SETTINGS is acknowledged
        client.pump(lambda: any(f.type == FRAME_SETTINGS and f.flags & FLAG_ACK for f in client.frames))
    finally:
        client.close()


def test_max_concurrent_streams_option(plaintext_server):
    client = h2_client_for(plaintext_server.listener)
    try:
        client.wait_for_settings()
        values = dict(client.first_server_settings())
        assert values.get(MAX_CONCURRENT_STREAMS) == 50, values
        for key in (HEADER_TABLE_SIZE, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_HEADER_LIST_SIZE):
            assert values.get(key) == APPLE_SETTINGS[key], values
        assert client.conn.remote_settings.max_concurrent_streams == 50
    finally:
        client.close()


def test_ping_is_acknowledged(server):
    client = h2_client_for(server.listener)
    try:
        client.ping(b"12345678")
        acks = [f for f in client.frames if f.type == FRAME_PING]
        assert [(f.flags & FLAG_ACK, f.payload, f.stream_id) for f in acks] == [(FLAG_ACK, b"12345678", 0)]
        client.ping(b"\x00\xff" * 4)
        assert client.ping_acks == [b"12345678", b"\x00\xff" * 4]
    finally:
        client.close()


@pytest.mark.parametrize("alpn", [("h2",), ("h2", "http/1.1"), None], ids=["alpn-h2", "alpn-h2-http11", "no-alpn"])
def test_alpn_and_prior_knowledge(server, alpn):
    client = h2_client_for(server.listener, alpn=alpn)
    try:
        if alpn is None:
            assert client.alpn is None  # pushy / aioapns style: TLS without ALPN, then the h2 preface
        else:
            assert client.alpn == "h2"
        client.wait_for_settings()
        assert dict(client.first_server_settings())[MAX_CONCURRENT_STREAMS] == 1000
        token = tok()
        resp = client.request(apns_headers(token), b'{"aps":{"alert":"alpn"}}')
        assert resp.status == 200, resp
        record = server.delivery_by_apns_id(resp.header("apns-id"))
        assert record["deviceToken"] == token and record["status"] == 200
    finally:
        client.close()


def test_success_is_one_headers_frame_with_end_stream(server):
    client = h2_client_for(server.listener)
    try:
        resp = client.request(apns_headers(tok()), b'{"aps":{"alert":"frames"}}')
        assert resp.status == 200
        frames = stream_frames(client, resp.stream_id)
        assert [f.type for f in frames] == [FRAME_HEADERS], frames
        assert frames[0].flags & FLAG_END_STREAM and frames[0].flags & FLAG_END_HEADERS, frames[0].flags
        assert resp.headers_end_stream and resp.body == b"" and resp.data_frames == 0
        names = [n for n, _ in resp.headers]
        assert names.count("apns-id") == 1 and "content-type" not in names and "content-length" not in names, names
        assert UPPER_UUID.match(resp.header("apns-id"))
    finally:
        client.close()


def test_responses_do_not_fill_the_clients_hpack_table(server):
    """apns-id and apns-unique-id change on every response: responses are encoded with a dynamic
    table of size 0 (literals without indexing, RFC 7541 section 6.2.2), so nothing is inserted
    into the client's table and nothing is marked sensitive (never indexed)."""
    import hpack

    client = h2_client_for(server.listener)
    try:
        first = client.request(apns_headers(tok()), b'{"aps":{"alert":"one"}}')
        second = client.request(apns_headers(tok()), b'{"aps":{"alert":"two"}}')
        error = client.request(apns_headers(tok(), extra=[("apns-priority", "7")]), b"{}")
        assert (first.status, second.status, error.status) == (200, 200, 400)
        decoder = hpack.Decoder()  # the server's HEADERS blocks in order, as any client decodes them
        decoded = {}
        for frame in client.frames:
            if frame.type == FRAME_HEADERS:
                decoded[frame.stream_id] = decoder.decode(frame.payload, raw=False)
        for resp in (first, second, error):
            fields = decoded[resp.stream_id]
            assert [(n, v) for n, v in fields] == resp.headers, fields
            assert {type(f).__name__ for f in fields} == {"HeaderTuple"}, fields
        assert {"apns-id", "apns-unique-id"} <= {n for n, _ in decoded[first.stream_id]}
        assert len(decoder.header_table.dynamic_entries) == 0
        assert decoder.header_table.maxsize == 0, "the table size update to 0 came with the first block"
        assert first.header("apns-id") != second.header("apns-id")
    finally:
        client.close()


def test_changing_header_values_on_one_connection_are_recorded_as_sent(server):
    """The transport reuses the strings of a header field repeated at the same position of the
    header block (HeaderFieldInterner); each record must still hold its own request's values."""
    client = h2_client_for(server.listener)
    try:
        same = tok()
        sent = [
            (same, "com.example.app", b"v1"),
            (same, "com.example.app", b"v1"),  # every field repeated
            (tok(), "com.example.xyz", b"v2"),  # same lengths, other bytes
            (tok(), "com.example.xyz", b"\xff\xfe"),  # invalid UTF-8: repaired
            (tok(), "com.example.xyz", "\ufffd\ufffd".encode()),  # the repaired text, sent as valid UTF-8
            (same, "com.example.app", b""),
        ]
        for token, topic, value in sent:
            headers = apns_headers(token, topic=topic)
            headers = [(n.encode(), v.encode()) for n, v in headers] + [(b"x-test", value)]
            resp = client.request(headers, b'{"aps":{"alert":"' + value.hex().encode() + b'"}}')
            assert resp.status == 200, (resp.status, resp.body)
            record = server.delivery_by_apns_id(resp.header("apns-id"))
            assert record["path"] == f"/3/device/{token}", record
            assert record["topic"] == topic, record
            assert [h["value"] for h in record["headers"] if h["name"] == "x-test"] == [value.decode("utf-8", "replace")]
            assert record["payload"] == {"aps": {"alert": value.hex()}}
    finally:
        client.close()


def test_error_is_headers_then_data_with_end_stream(server):
    client = h2_client_for(server.listener)
    try:
        resp = client.request(apns_headers(tok(), extra=[("apns-priority", "7")]), b'{"aps":{"alert":"x"}}')
        assert resp.status == 400
        frames = stream_frames(client, resp.stream_id)
        assert [f.type for f in frames] == [FRAME_HEADERS, FRAME_DATA], frames
        headers_frame, data_frame = frames
        assert headers_frame.flags & FLAG_END_HEADERS and not headers_frame.flags & FLAG_END_STREAM
        assert data_frame.flags & FLAG_END_STREAM
        assert json.loads(data_frame.payload) == {"reason": "BadPriority"}
        assert resp.header("content-type") == "application/json"
        assert UPPER_UUID.match(resp.header("apns-id"))
        # the connection stays usable after a rejected request
        assert client.request(apns_headers(tok()), b"{}").status == 200
        assert client.goaway is None
    finally:
        client.close()


def test_graceful_stop_sends_goaway_shutdown(server_factory):
    server = server_factory()
    client = h2_client_for(server.listener)
    try:
        assert client.request(apns_headers(tok()), b"{}").status == 200
        signalled = time.monotonic()
        server.signal()
        try:
            client.pump(lambda: client.goaway is not None or client.closed, timeout=10)
        except TimeoutError:
            pytest.fail("no GOAWAY and no close within 10 s of SIGTERM")
        goaways = [f for f in client.frames if f.type == FRAME_GOAWAY]
        assert client.goaway is not None and goaways, "connection closed without GOAWAY"
        assert client.goaway.error_code == 0, client.goaway  # NO_ERROR
        assert client.goaway.additional_data == b'{"reason":"Shutdown"}', client.goaway
        assert client.goaway.last_stream_id == 1, client.goaway
        payload = goaways[0].payload
        assert int.from_bytes(payload[4:8], "big") == 0 and payload[8:] == b'{"reason":"Shutdown"}'
        rc = server.proc.wait(max(0.1, 10 - (time.monotonic() - signalled)))
        assert rc == 0
    finally:
        client.close()
