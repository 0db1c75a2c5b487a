"""Fault rules on the legacy binary gateway (docs/legacy-binary.md §8): a rule with
`match.protocol: "binary"` answers a binary notification with an error packet (respond: the
reason's status), a close without packet, a TCP reset, each after an optional fixed delay; an
action with no binary meaning is refused with 400; a rule without `protocol` is HTTP/2's only.
"""

from __future__ import annotations

import time

from test_binary import TOKEN, binary_server, connect, enhanced, nothing_within, packet, read_until_closed


def add_rule(server, rule):
    r = server.control("POST", "/v1/faults", rule)
    assert r.status in (200, 201), (r.status, r.body)
    return r.json


def binary_records(server):
    return [d for d in server.deliveries()["deliveries"] if d["listener"] == "binary"]


def test_respond_rule_answers_with_the_reasons_status(binary_server):
    add_rule(binary_server, {"id": "bad", "match": {"protocol": "binary", "token": TOKEN.hex()},
                             "action": {"type": "respond", "reason": "BadDeviceToken"}})
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(1, token=bytes([0xEE] * 32)) + enhanced(2) + enhanced(3, token=bytes([0xEE] * 32)))
    assert read_until_closed(sock) == packet(8, 2)
    records = binary_records(binary_server)
    assert [r["status"] for r in records] == [200, 400, None], records
    assert records[1]["fault"]["ruleId"] == "bad" and records[1]["reason"] == "BadDeviceToken", records[1]
    events = binary_server.get_json("/v1/events?kind=errorPacket")["events"]
    assert events[-1]["origin"] == "fault" and events[-1]["ruleId"] == "bad", events
    assert events[-1]["details"] == {"status": 8, "statusName": "Invalid token", "identifier": 2}


def test_delayed_shutdown_and_close_and_reset(binary_server):
    add_rule(binary_server, {"id": "late", "match": {"protocol": "binary"}, "lifetime": {"times": 1},
                             "action": {"type": "delay", "ms": 400,
                                        "then": {"type": "respond", "reason": "Shutdown"}}})
    sock = connect(binary_server.binary_port)
    started = time.time()
    sock.sendall(enhanced(7))
    assert read_until_closed(sock) == packet(10, 7)
    assert time.time() - started >= 0.35
    add_rule(binary_server, {"id": "fin", "match": {"protocol": "binary"}, "lifetime": {"times": 1},
                             "action": {"type": "close"}})
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(8))
    assert read_until_closed(sock) == b""
    closed = [e for e in binary_server.get_json("/v1/events?kind=closed&origin=fault")["events"]]
    assert {e["ruleId"] for e in closed} >= {"late", "fin"}, closed
    add_rule(binary_server, {"id": "rst", "match": {"protocol": "binary"}, "lifetime": {"times": 1},
                             "action": {"type": "reset"}})
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(9))
    assert read_until_closed(sock) == b""


def test_actions_without_a_binary_meaning_are_refused(binary_server):
    for action in ({"type": "goaway"}, {"type": "resetStream", "errorCode": "CANCEL"}, {"type": "noResponse"},
                   {"type": "delay", "ms": 5}, {"type": "settings", "maxConcurrentStreams": 1}):
        r = binary_server.control("POST", "/v1/faults", {"match": {"protocol": "binary"}, "action": action})
        assert r.status == 400, (action, r.status, r.body)
        assert "protocol binary" in r.json["error"], r.body


def test_a_rule_without_protocol_is_http2_only(binary_server):
    add_rule(binary_server, {"id": "all", "action": {"type": "respond", "reason": "BadDeviceToken"}})
    sock = connect(binary_server.binary_port)
    sock.sendall(enhanced(11))
    assert nothing_within(sock)
    assert binary_records(binary_server)[-1]["status"] == 200
