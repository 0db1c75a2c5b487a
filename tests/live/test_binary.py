"""The legacy binary provider API and the feedback service over real TLS (docs/legacy-binary.md).

Exact bytes through Python ssl sockets: accepted notifications get no bytes, a bad one its 6-byte
error packet (command 8, status, identifier) and a close, command 0 a close with no packet, split
frames are read, shutdown sends status 10 naming the last accepted identifier, and the feedback
service sends one tuple per token unregistered since the last read.
"""

from __future__ import annotations

import re
import socket
import ssl
import struct
import subprocess
import time

from pathlib import Path

import pytest

from livelib import binary_path

TOKEN = bytes(range(32))
PAYLOAD = b'{"aps":{"alert":"hi"}}'


def ports(server):
    """The binary and feedback listeners' ports, from the start lines."""
    found = {}
    for line in server.stdout_lines:
        m = re.search(r": (binary|feedback) listener \S+ \(\w+\) on 127\.0\.0\.1:(\d+)$", line)
        if m:
            found[m[1]] = int(m[2])
    return found


AUTH = Path(__file__).resolve().parents[2] / "fixtures" / "auth"
TOPIC = "com.example.app"


def start(server_factory, *args):
    server = server_factory("--binary", "127.0.0.1:0", "--feedback", "127.0.0.1:0", *args)
    found = ports(server)
    assert set(found) == {"binary", "feedback"}, server.stdout_lines
    server.binary_port = found["binary"]
    server.feedback_port = found["feedback"]
    return server


@pytest.fixture
def binary_server(server_factory):
    """Binary and feedback listeners without mutual TLS; notifications take --binary-topic."""
    return start(server_factory, "--binary-topic", TOPIC)


def connect(port: int, cert: str | None = None) -> ssl.SSLSocket:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if cert is not None:
        context.load_cert_chain(str(AUTH / f"{cert}.pem"), str(AUTH / f"{cert}-key.pem"))
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))
    sock.settimeout(3)
    return sock


def read_until_closed(sock, timeout: float = 3.0) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except (ConnectionResetError, ssl.SSLError):
            break
        if not chunk:
            break
        data += chunk
    return data


def nothing_within(sock, seconds: float = 0.3) -> bool:
    """True when no byte arrives and the connection stays open for `seconds`."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b"" and False
    except (socket.timeout, TimeoutError):
        return True


def simple(token=TOKEN, payload=PAYLOAD) -> bytes:
    return struct.pack("!BH", 0, len(token)) + token + struct.pack("!H", len(payload)) + payload


def enhanced(identifier: int, token=TOKEN, payload=PAYLOAD, expiry: int = 0) -> bytes:
    return struct.pack("!BIIH", 1, identifier, expiry, len(token)) + token + struct.pack("!H", len(payload)) + payload


def item(item_id: int, data: bytes) -> bytes:
    return struct.pack("!BH", item_id, len(data)) + data


def framed(identifier: int | None, token=TOKEN, payload=PAYLOAD, priority: int = 10, items=None) -> bytes:
    if items is None:
        items = [item(1, token), item(2, payload)]
        if identifier is not None:
            items.append(item(3, struct.pack("!I", identifier)))
        items += [item(4, struct.pack("!I", 0)), item(5, bytes([priority]))]
    body = b"".join(items)
    return struct.pack("!BI", 2, len(body)) + body


def packet(status: int, identifier: int) -> bytes:
    return struct.pack("!BBI", 8, status, identifier)


def test_accepted_notifications_get_no_bytes(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(simple() + enhanced(1) + framed(2) + framed(3, priority=5))
    assert nothing_within(sock)
    sock.close()


@pytest.mark.parametrize(
    "frame, status, identifier",
    [
        (enhanced(11, token=b""), 2, 11),
        (framed(None, items=[item(2, PAYLOAD), item(3, struct.pack("!I", 12))]), 2, 12),
        (enhanced(13, token=TOKEN[:31]), 5, 13),
        (framed(14, token=TOKEN + b"\0"), 5, 14),
        (enhanced(15, payload=b""), 4, 15),
        (framed(16, payload=b""), 4, 16),
        (enhanced(17, payload=b" " * 257), 7, 17),
        (framed(18, payload=b" " * 2049), 7, 18),
        (framed(19, priority=7), 128, 19),
        (framed(None, items=[item(1, TOKEN), item(1, TOKEN), item(2, PAYLOAD), item(3, struct.pack("!I", 20))]), 128, 20),
        (b"\x02\xff\xff\xff\xff", 128, 0),
        (b"\x09\x00\x00", 128, 0),
    ],
    ids=["missing-token", "framed-no-token", "token-size", "framed-token-size", "missing-payload",
         "framed-missing-payload", "payload-size", "framed-payload-size", "bad-priority", "duplicate-item",
         "4GB-frame", "unknown-command"],
)
def test_each_frame_status_gets_its_error_packet_then_close(binary_server, frame, status, identifier):
    sock = connect(binary_server.binary_port)
    sock.sendall(frame)
    assert read_until_closed(sock) == packet(status, identifier)


def test_frames_split_byte_by_byte_are_read(binary_server):
    sock = connect(binary_server.binary_port)
    stream = enhanced(1) + framed(2) + enhanced(3, token=b"")
    for byte in stream:
        sock.sendall(bytes([byte]))
    assert read_until_closed(sock) == packet(2, 3)


def test_third_of_five_in_one_write_is_named_and_the_socket_closed(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(1) + enhanced(2) + enhanced(3, token=TOKEN[:8]) + enhanced(4) + enhanced(5))
    assert read_until_closed(sock) == packet(5, 3)


def test_command_zero_is_severed_without_a_packet(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(simple(token=TOKEN[:20]))
    assert read_until_closed(sock) == b""


def test_pushmebaby_frame_is_accepted(binary_server):
    """PushMeBaby's Push: command 0, htons(32), a 32-byte token, htons(len), its default payload."""
    token = bytes.fromhex("c0ffee00" * 8)
    payload = b'{"aps":{"alert":"This is some fancy message.","badge":1}}'
    frame = b"\x00" + struct.pack("!H", 32) + token + struct.pack("!H", len(payload)) + payload
    sock = connect(binary_server.binary_port)
    sock.sendall(frame)
    assert nothing_within(sock)
    sock.close()


def test_shutdown_sends_status_ten_with_the_last_accepted_identifier(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(41) + framed(42))
    assert nothing_within(sock)
    binary_server.signal()
    assert read_until_closed(sock, timeout=5) == packet(10, 42)


def test_shutdown_after_a_command_zero_names_the_last_identifier_sent(binary_server):
    # command 0 carries no identifier: status 10 names the last notification that had one
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(7) + simple())
    assert nothing_within(sock)
    only_simple = connect(binary_server.binary_port)
    only_simple.sendall(simple())
    assert nothing_within(only_simple)
    binary_server.signal()
    assert read_until_closed(sock, timeout=5) == packet(10, 7)
    assert read_until_closed(only_simple, timeout=5) == packet(10, 0)


def test_idle_connections_are_closed_and_the_cap_closes_new_ones_at_once(server_factory):
    server = server_factory(
        "--binary-topic", TOPIC,
        config={"binary": {"listen": "127.0.0.1:0", "idleTimeoutSeconds": 1, "maxConnections": 2},
                "feedback": {"listen": "127.0.0.1:0", "maxConnections": 1}})
    found = ports(server)
    first = connect(found["binary"])
    second = connect(found["binary"])
    first.sendall(enhanced(1))  # served: no answer
    assert nothing_within(first)
    # a third is reset before the TLS handshake (the RST may already meet the connect)
    with pytest.raises(ConnectionResetError):
        with socket.create_connection(("127.0.0.1", found["binary"]), timeout=3) as raw:
            raw.settimeout(3)
            raw.recv(1)
    # idle: closed about 1 s after the last byte, no packet
    started = time.monotonic()
    assert read_until_closed(second, timeout=4) == b""
    assert time.monotonic() - started < 3
    assert read_until_closed(first, timeout=4) == b""
    events = server.get_json("/v1/events?kind=refused")["events"]
    assert [(e["listener"], e["kind"]) for e in events] == [("binary", "refused")]
    [record] = server.deliveries()["deliveries"]
    assert record["status"] == 200
    # places freed: a new connection is served
    again = connect(found["binary"])
    again.sendall(enhanced(2))
    assert nothing_within(again)
    again.close()


def test_feedback_returns_unregistered_tokens_once(binary_server):
    token = "aa" * 32
    r = binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                 "unregisteredAt": "2025-01-02T03:04:05.678Z"})
    assert r.status == 201, r.body
    other = "bb" * 32
    assert binary_server.put(f"/v1/devices/{other}", {"environment": "production",
                                                    "unregisteredAt": "2025-01-02T03:04:05.678Z"}).status == 201
    pending = binary_server.get_json("/v1/feedback")
    assert pending == {"feedback": [{"token": token, "timestamp": 1735787045, "environment": "sandbox"}],
                       "count": 1}, pending
    first = read_until_closed(connect(binary_server.feedback_port))
    assert first == struct.pack("!IH", 1735787045, 32) + bytes.fromhex(token)
    assert read_until_closed(connect(binary_server.feedback_port)) == b""
    assert binary_server.get_json("/v1/feedback") == {"feedback": [], "count": 0}


def test_feedback_waits_for_a_future_unregistration(binary_server):
    """A token whose unregisteredAt is still to come is registered until then (issue 19): the
    feedback service does not report it yet."""
    token = "ae" * 32
    assert binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                    "unregisteredAt": "2999-01-01T00:00:00Z"}).status == 201
    listed = binary_server.get_json("/v1/feedback")["feedback"]
    assert token not in [entry["token"] for entry in listed], listed
    assert token.encode() not in read_until_closed(connect(binary_server.feedback_port)).hex().encode()


def test_unregistered_token_gets_status_eight_and_what_follows_is_discarded(binary_server):
    token = "cd" * 32
    assert binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                    "unregisteredAt": "2025-01-02T03:04:05.678Z"}).status == 201
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(1) + enhanced(2, token=bytes.fromhex(token)) + enhanced(3))
    assert read_until_closed(sock) == packet(8, 2)


def binary_records(server):
    return [d for d in server.deliveries()["deliveries"] if d["listener"] == "binary"]


def header(record, name):
    values = [h["value"] for h in record["headers"] if h["name"] == name]
    return values[0] if values else None


def test_records_of_five_in_one_write_with_the_third_bad(binary_server):
    """1 and 2 recorded accepted, the error packet names 3, 4 and 5 recorded discarded, the socket closed."""
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(1) + enhanced(2) + enhanced(3, payload=b"") + framed(4) + enhanced(5))
    assert read_until_closed(sock) == packet(4, 3)
    records = binary_records(binary_server)
    assert [header(r, "x-mockapns-binary-identifier") for r in records] == ["1", "2", "3", "4", "5"]
    assert [r["status"] for r in records] == [200, 200, 400, None, None]
    assert [header(r, "x-mockapns-binary-status") for r in records] == [None, None, "4", None, None]
    assert [r["unanswered"] for r in records] == [None, None, None, "connection-closed", "connection-closed"]
    assert [header(r, "x-mockapns-binary-command") for r in records] == ["1", "1", "1", "2", "1"]
    first = records[0]
    assert first["method"] == "POST" and first["path"] == "/3/device/" + TOKEN.hex()
    assert first["deviceToken"] == TOKEN.hex() and first["topic"] == TOPIC
    assert first["priority"] == 10 and first["expiration"] == 0 and first["inferredPushType"] == "alert"
    assert first["payload"] == {"aps": {"alert": "hi"}} and first["streamId"] == 0
    # protocol "binary", and the listener and protocol filters select them
    assert {r["protocol"] for r in records} == {"binary"}
    assert [r["seq"] for r in binary_server.deliveries(listener="binary")["deliveries"]] == [r["seq"] for r in records]
    assert [r["seq"] for r in binary_server.deliveries(protocol="binary")["deliveries"]] == [r["seq"] for r in records]
    assert binary_server.deliveries(protocol="http2")["deliveries"] == []


def test_a_frame_error_after_a_refusal_in_the_same_write_is_discarded_not_refused(binary_server):
    """The gateway refuses 101 (payload not JSON) and 103 fails the frame checks (a 2-byte token)
    in the same read: only 101's packet is written, so 103's record must not claim one."""
    sock = connect(binary_server.binary_port)
    sock.sendall(framed(101, payload=b"notjson") + framed(102) + framed(103, token=b"ab") + framed(104))
    assert read_until_closed(sock) == packet(1, 101)
    records = binary_records(binary_server)
    assert [header(r, "x-mockapns-binary-identifier") for r in records] == ["101", "102", "103", "104"]
    assert [r["status"] for r in records] == [400, None, None, None]
    assert [header(r, "x-mockapns-binary-status") for r in records] == ["1", None, None, None]
    assert [r["unanswered"] for r in records] == [None, "connection-closed", "connection-closed", "connection-closed"]


def test_payload_not_json_is_status_one(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(61, payload=b"not json"))
    assert read_until_closed(sock) == packet(1, 61)


def test_no_topic_is_status_three(server_factory):
    server = start(server_factory)
    sock = connect(server.binary_port)
    sock.sendall(enhanced(71))
    assert read_until_closed(sock) == packet(3, 71)


def test_content_available_at_priority_ten_is_linted_as_on_http2(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(framed(81, payload=b'{"aps":{"content-available":1}}'))
    assert nothing_within(sock)
    sock.close()
    record = binary_records(binary_server)[-1]
    assert record["status"] == 200 and record["inferredPushType"] == "background" and record["lints"], record


def test_client_certificates_as_http2_listeners_verify_them(server_factory):
    server = start(server_factory, "--client-ca", str(AUTH / "client-ca.pem"))
    # No certificate: closed after the handshake, no packet.
    sock = connect(server.binary_port)
    sock.sendall(enhanced(91))
    assert read_until_closed(sock) == b""
    # A certificate whose UID is the topic: accepted, recorded with that topic and the identity.
    sock = connect(server.binary_port, cert="client-sandbox-single")
    sock.sendall(enhanced(92))
    assert nothing_within(sock)
    sock.close()
    record = binary_records(server)[-1]
    assert record["topic"] == TOPIC and record["identity"]["kind"] == "certificate", record
    # A certificate naming several topics: the binary protocol has no topic field, so its base
    # bundle ID (the UID) is the topic (test_binary_connections.py has the rest).
    sock = connect(server.binary_port, cert="client-sandbox-multi")
    sock.sendall(enhanced(93))
    assert nothing_within(sock)
    sock.close()
    assert binary_records(server)[-1]["topic"] == TOPIC


def test_without_certificate_option_serves_unauthenticated_connections(server_factory):
    server = start(server_factory, "--client-ca", str(AUTH / "client-ca.pem"), "--binary-without-certificate",
                   "--binary-topic", TOPIC)
    sock = connect(server.binary_port)
    sock.sendall(enhanced(95))
    assert nothing_within(sock)
    sock.close()


def test_virtual_device_gets_the_binary_push(binary_server):
    token = "ef" * 32
    r = binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC, "virtual": True,
                                                 "connectivity": "online", "appState": "background"})
    assert r.status == 201, r.body
    sock = connect(binary_server.binary_port)
    sock.sendall(framed(101, token=bytes.fromhex(token)))
    assert nothing_within(sock)
    sock.close()
    record = binary_records(binary_server)[-1]
    assert header(record, "x-mockapns-binary-identifier") == "101" and record["status"] == 200
    device = binary_server.get_json(f"/v1/devices/{token}")
    assert device["delivered"] == [record["seq"]], device
    shown = binary_server.get_json(f"/v1/deliveries/{record['seq']}")
    assert "Delivered to Device" in [e["state"] for e in shown["lifecycle"]][-1], shown


def test_what_arrives_after_the_error_packet_is_read_and_recorded_discarded(binary_server):
    """No reset: the sender reads the packet and EOF, and what it sent meanwhile is recorded discarded."""
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(111) + enhanced(112, token=b""))
    sock.settimeout(3)
    assert sock.recv(6) == packet(2, 112)
    sock.sendall(enhanced(113) + framed(114))
    assert read_until_closed(sock) == b""
    sock.close()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        records = binary_records(binary_server)
        if len(records) >= 4:
            break
        time.sleep(0.05)
    assert [header(r, "x-mockapns-binary-identifier") for r in records] == ["111", "112", "113", "114"]
    assert [r["unanswered"] for r in records] == [None, None, "connection-closed", "connection-closed"]


def run_tool(*args):
    result = subprocess.run([str(binary_path()), *args], capture_output=True, text=True, timeout=30)
    return result.returncode, result.stdout, result.stderr


def test_mock_apns_send_binary_and_feedback(binary_server):
    """PushMeBaby for Linux: `mock-apns send --binary` and `mock-apns feedback`."""
    address = f"127.0.0.1:{binary_server.binary_port}"
    rc, out, err = run_tool("send", "--binary", address, "--insecure", "--command", "0",
                            "--device-token", "c0ffee01 " * 8)
    assert rc == 0 and "accepted" in out, (out, err)
    rc, out, err = run_tool("send", "--binary", address, "--insecure", "--command", "2", "--identifier", "40",
                            "--count", "3", "--priority", "5", "--device-token", TOKEN.hex())
    assert rc == 0 and "sent 3 notification(s)" in out, (out, err)
    rc, out, err = run_tool("send", "--binary", address, "--insecure", "--command", "1", "--identifier", "9",
                            "--device-token", TOKEN.hex(), "not json")
    assert rc == 1 and "error packet: status 1 (Processing error), identifier 9" in out, (out, err)
    records = binary_records(binary_server)
    assert [header(r, "x-mockapns-binary-identifier") for r in records] == [None, "40", "41", "42", "9"]
    assert records[0]["path"] == "/3/device/" + "c0ffee01" * 8
    token = "12" * 32
    assert binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                    "unregisteredAt": "2025-01-02T03:04:05Z"}).status == 201
    rc, out, err = run_tool("feedback", f"127.0.0.1:{binary_server.feedback_port}", "--insecure")
    assert rc == 0 and out.splitlines() == [f"1735787045 {token}", "1 tuple(s)"], (out, err)
    rc, out, err = run_tool("feedback", f"127.0.0.1:{binary_server.feedback_port}", "--insecure")
    assert rc == 0 and out.splitlines() == ["0 tuple(s)"], (out, err)
