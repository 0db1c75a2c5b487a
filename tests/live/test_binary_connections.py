"""Binary and feedback connections in /v1/connections and /v1/events (issue 16), the topic of a
multi-topic certificate, and a certificate of the other environment (docs/legacy-binary.md §8).

Exact bytes through Python ssl sockets, as test_binary.py sends them.
"""

from __future__ import annotations

import struct
import time

from test_binary import AUTH, TOPIC, binary_server, connect, enhanced, nothing_within, packet, ports, read_until_closed, start


def wait_for(condition, seconds: float = 5.0):
    end = time.time() + seconds
    while time.time() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return condition()


def legacy_connections(server, protocol="binary"):
    return [c for c in server.get_json("/v1/connections")["connections"] if c["protocol"] == protocol]


def events_of(server, connection_id):
    return [e for e in server.get_json(f"/v1/events?connectionId={connection_id}")["events"]]


def test_binary_connection_is_listed_closable_and_refuses_goaway(server_factory):
    server = start(server_factory, "--client-ca", str(AUTH / "client-ca.pem"))
    sock = connect(server.binary_port, cert="client-sandbox-single")
    sock.sendall(enhanced(1) + enhanced(2))
    assert nothing_within(sock)
    listed = wait_for(lambda: [c for c in legacy_connections(server) if c["requests"] == 2])
    assert len(listed) == 1, server.get_json("/v1/connections")
    entry = listed[0]
    assert entry["listener"] == "binary" and entry["tls"] is True and entry["state"] == "open", entry
    assert entry["id"] >= 1 << 32, entry
    assert "UID=com.example.app" in entry["certificateSubject"], entry
    assert entry["topic"] == TOPIC, entry
    assert entry["legacy"] == {"notifications": 2, "accepted": 2, "refused": 0, "discarded": 0,
                               "feedbackTuples": 0}, entry
    # HTTP/2's commands have no binary meaning: 409 naming why; the connection stays open.
    for command in ("goaway", "drain", "blackhole"):
        r = server.control("POST", f"/v1/connections/{entry['id']}/{command}")
        assert r.status == 409, (command, r.status, r.body)
        assert "binary" in r.json["error"] and "use close or reset" in r.json["error"], r.body
    assert nothing_within(sock)
    # close: a FIN with no packet, and a closed event naming the command.
    r = server.control("POST", f"/v1/connections/{entry['id']}/close")
    assert r.status == 200, r.body
    assert r.json == {"action": "close", "id": entry["id"]}
    assert read_until_closed(sock) == b""
    events = wait_for(lambda: [e for e in events_of(server, entry["id"]) if e["kind"] == "closed"])
    assert events[0]["origin"] == "command" and events[0]["details"]["reason"] == "command", events
    assert events[0]["details"]["protocol"] == "binary" and events[0]["details"]["notifications"] == 2, events
    opened = [e for e in events_of(server, entry["id"]) if e["kind"] == "opened"]
    assert opened[0]["details"]["protocol"] == "binary", opened
    assert "UID=com.example.app" in opened[0]["details"]["certificateSubject"], opened
    assert opened[0]["details"]["topic"] == TOPIC, opened
    assert legacy_connections(server) == []
    # The every-connection command takes the binary listener's name.
    r = server.control("POST", "/v1/connections/close?listener=binary")
    assert r.status == 200 and r.json == {"action": "close", "ids": []}, r.body


def test_reset_closes_a_binary_connection_with_a_tcp_reset(binary_server):
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(5))
    assert nothing_within(sock)
    entry = wait_for(lambda: legacy_connections(binary_server))[0]
    assert entry["certificateSubject"] is None and entry["topic"] == TOPIC, entry
    assert binary_server.control("POST", f"/v1/connections/{entry['id']}/reset").status == 200
    try:
        data = sock.recv(10)
    except (ConnectionResetError, OSError):
        data = b""
    assert data == b""


def test_error_packet_and_close_are_connection_events(binary_server):
    token = "cd" * 32
    assert binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                    "unregisteredAt": "2025-01-02T03:04:05.678Z"}).status == 201
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(1) + enhanced(7, token=bytes.fromhex(token)) + enhanced(3))
    assert read_until_closed(sock) == packet(8, 7)
    sock.close()

    def done():
        found = binary_server.get_json("/v1/events?kind=errorPacket")["events"]
        return found and [e for e in events_of(binary_server, found[-1]["connectionId"]) if e["kind"] == "closed"]

    assert wait_for(done), binary_server.get_json("/v1/events")
    packets = binary_server.get_json("/v1/events?kind=errorPacket")["events"]
    assert packets[-1]["details"] == {"status": 8, "statusName": "Invalid token", "identifier": 7}, packets
    assert packets[-1]["listener"] == "binary" and packets[-1]["origin"] == "lifecycle", packets
    closed = [e for e in events_of(binary_server, packets[-1]["connectionId"]) if e["kind"] == "closed"]
    assert closed[0]["details"]["reason"] == "error-packet", closed
    assert closed[0]["details"]["notifications"] == 3, closed


def test_multi_topic_certificate_pushes_to_its_base_bundle_id(server_factory):
    """A "universal" certificate with the topics extension (com.example.app, .voip, .complication):
    the binary protocol has no topic field, so the base bundle ID (the subject's UID) is the topic."""
    server = start(server_factory, "--client-ca", str(AUTH / "client-ca.pem"))
    for cert in ("client-sandbox-multi", "client-universal-multi"):
        sock = connect(server.binary_port, cert=cert)
        sock.sendall(enhanced(93))
        assert nothing_within(sock), cert
        sock.close()
    records = [d for d in server.deliveries()["deliveries"] if d["listener"] == "binary"]
    assert [r["topic"] for r in records] == [TOPIC, TOPIC], records
    assert all(r["status"] == 200 for r in records), records


def test_certificate_of_the_other_environment_is_closed_without_a_packet(server_factory):
    server = start(server_factory, "--client-ca", str(AUTH / "client-ca.pem"))
    sock = connect(server.binary_port, cert="client-production-single")
    sock.sendall(enhanced(41))
    assert read_until_closed(sock) == b""
    closed = wait_for(lambda: [e for e in server.get_json("/v1/events?kind=closed")["events"]
                               if e["details"].get("reason") == "certificate-environment"])
    assert closed and closed[0]["origin"] == "certificate", closed
    assert [d for d in server.deliveries()["deliveries"] if d["listener"] == "binary"] == []
    # A universal certificate (both environments) is served.
    sock = connect(server.binary_port, cert="client-universal-single")
    sock.sendall(enhanced(42))
    assert nothing_within(sock)


def test_certificate_environment_accept_serves_the_other_environment(server_factory):
    server = server_factory("--client-ca", str(AUTH / "client-ca.pem"),
                            config={"binary": {"listen": "127.0.0.1:0", "certificateEnvironment": "accept"}})
    port = ports(server)["binary"]
    sock = connect(port, cert="client-production-single")
    sock.sendall(enhanced(43))
    assert nothing_within(sock)


def test_feedback_read_is_listed_as_events_with_its_tuples(binary_server):
    token = "ab" * 32
    assert binary_server.put(f"/v1/devices/{token}", {"environment": "sandbox",
                                                    "unregisteredAt": "2025-01-02T03:04:05.678Z"}).status == 201
    data = read_until_closed(connect(binary_server.feedback_port))
    assert data == struct.pack("!IH", 1735787045, 32) + bytes.fromhex(token)
    sent = wait_for(lambda: binary_server.get_json("/v1/events?kind=feedbackSent")["events"])
    assert sent[-1]["details"] == {"tuples": 1, "tokens": [token]}, sent
    assert sent[-1]["listener"] == "feedback", sent
    closed = wait_for(lambda: [e for e in events_of(binary_server, sent[-1]["connectionId"]) if e["kind"] == "closed"])
    assert closed[0]["details"]["reason"] == "feedback-sent" and closed[0]["details"]["protocol"] == "feedback"
    assert binary_server.get_json("/v1/feedback") == {"feedback": [], "count": 0}
