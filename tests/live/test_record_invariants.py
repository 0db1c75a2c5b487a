"""A record (and /v1/stats, and `wait`) never says more than the sender got (issue 13, review
bugs): a stream counts as answered only once its response HEADERS is really written, a delayed
answer is pending until then, a GOAWAY's low last-stream-id leaves streams already answered
alone, and a drain's own close is a connection event. Each test checks what the client saw on
the wire against the records and the stats."""

from __future__ import annotations

import time

import h2.settings
import pytest

from livelib import apns_headers, connection_entry, wait_no_connections

# The same helpers and fixture as the unanswered-stream tests (a --drain-timeout 1 server).
from test_unanswered import add_faults, connect, mock, records_for, seen_status, tok  # noqa: F401  (mock is a fixture)

BODY = b'{"aps":{"alert":"invariants"}}'


def check_stats_agree(server):
    by_status = {}
    for record in server.deliveries()["deliveries"]:
        key = str(record["status"] or 0)
        by_status[key] = by_status.get(key, 0) + 1
    assert server.stats()["byStatus"] == by_status, (server.stats()["byStatus"], by_status)


# -------------------------------------------------------------------------------------------
# 1. A batch in one write, ended by a rule: what nghttp2 never wrote is not answered.
# -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "action, cause",
    [({"type": "close"}, "connection-closed"),
     ({"type": "reset"}, "connection-reset"),
     ({"type": "blackhole"}, "connection-closed-by-client")],
    ids=["close", "reset", "blackhole"],
)
def test_a_batch_ended_by_a_rule_records_only_what_was_written(mock, action, cause):
    tokens = [tok() for _ in range(12)]
    trigger, after = tokens[6], tokens[9]
    add_faults(mock, {"match": {"token": trigger}, "action": action})
    # A rule on a push after the trigger: the batch's rest is not dispatched, so it never matches.
    (later_rule,) = add_faults(mock, {"match": {"token": after}, "action": {"type": "delay", "ms": 1}})
    client = connect(mock)
    try:
        sids = client.send_in_one_write([(apns_headers(t), BODY) for t in tokens])
        if action["type"] == "blackhole":
            time.sleep(0.5)  # nothing arrives any more
            client._receive_once(0.1)
        else:
            assert client.wait_closed(3)
    finally:
        client.close()
    wait_no_connections(mock)
    records = records_for(mock, tokens)
    for token, sid in zip(tokens, sids):
        record, wire = records[token], seen_status(client, sid)
        assert record["streamId"] == sid, record
        assert record["status"] == wire, (
            f"stream {sid}: the client saw status {wire}, the record says {record['status']}: {record}")
        if wire is None:
            assert record["unanswered"] == cause, record
        else:
            assert record["unanswered"] is None, record
    for token in tokens[7:]:
        assert records[token]["fault"] is None, records[token]
    rules = {r["id"]: r for r in mock.get_json("/v1/faults")["faults"]}
    assert rules[later_rule]["matched"] == 0, rules[later_rule]
    check_stats_agree(mock)


# -------------------------------------------------------------------------------------------
# 2. A delayed answer is pending (status null, no cause) until its HEADERS is written.
# -------------------------------------------------------------------------------------------

def test_a_delayed_answer_is_pending_until_it_is_sent(mock):
    token = tok()
    add_faults(mock, {"match": {"token": token}, "action": {"type": "delay", "ms": 1200}})
    client = connect(mock)
    try:
        sent = time.monotonic()
        sid = client.start_request(apns_headers(token), BODY)
        client.pump(lambda: len(mock.deliveries(token=token)["deliveries"]) == 1, timeout=1)
        record = mock.deliveries(token=token)["deliveries"][0]
        assert (record["status"], record["unanswered"], record["reason"]) == (None, None, None), record
        assert record["fault"]["action"] == "delay", record
        assert "200" not in mock.stats()["byStatus"], mock.stats()
        waited = mock.get(f"/v1/deliveries/wait?count=1&timeoutMs=200&token={token}&status=200")
        assert waited.status == 200, waited.body
        assert (waited.json["complete"], waited.json["matched"]) == (False, 0), waited.json
        # Pending is not unanswered: its answer may yet be sent.
        assert mock.deliveries(token=token, unanswered="any")["deliveries"] == []
        assert [r["seq"] for r in mock.deliveries(token=token, unanswered="pending")["deliveries"]] == [record["seq"]]
        assert seen_status(client, sid) is None
        client.pump(lambda: client.responses[sid].done, timeout=3)
        assert time.monotonic() - sent >= 1.1
        assert client.responses[sid].status == 200
    finally:
        client.close()
    record = mock.deliveries(token=token)["deliveries"][0]
    assert (record["status"], record["unanswered"]) == (200, None), record
    assert mock.deliveries(token=token, unanswered="pending")["deliveries"] == []
    assert mock.stats()["byStatus"].get("200") == 1, mock.stats()
    waited = mock.get(f"/v1/deliveries/wait?count=1&timeoutMs=200&token={token}&status=200")
    assert (waited.json["complete"], waited.json["matched"]) == (True, 1), waited.json
    check_stats_agree(mock)


# -------------------------------------------------------------------------------------------
# 3. A GOAWAY with a low explicit last-stream-id leaves streams already answered as they are.
# -------------------------------------------------------------------------------------------

def test_a_low_last_stream_id_keeps_a_stream_already_answered(mock):
    bad, trigger = "0" * 63, tok()  # 63 hex digits: 400 BadDeviceToken, a body to send
    add_faults(mock, {"match": {"token": trigger},
                      "action": {"type": "goaway", "lastStreamId": 0, "reason": "Shutdown"}})
    client = connect(mock)
    try:
        # No DATA from the server: the 400's HEADERS goes out, its body waits, the stream stays open.
        client.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        client._flush()
        client.ping()
        first = client.start_request(apns_headers(bad), BODY)
        client.pump(lambda: seen_status(client, first) is not None, timeout=2)
        assert seen_status(client, first) == 400
        second = client.start_request(apns_headers(trigger), BODY)
        assert client.wait_closed(3)
    finally:
        client.close()
    wait_no_connections(mock)
    answered = mock.deliveries(token=bad)["deliveries"][0]
    assert (answered["status"], answered["unanswered"]) == (400, None), answered
    above = mock.deliveries(token=trigger)["deliveries"][0]
    assert (above["streamId"], above["status"], above["unanswered"]) == (second, None, "above-last-stream-id")
    check_stats_agree(mock)


# -------------------------------------------------------------------------------------------
# 4. A drain's close (as soon as idle, or at its cap) is one `close` event.
# -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("held_ms", [0, 3000], ids=["idle", "at-the-cap"])
def test_a_drain_close_is_one_close_event(mock, held_ms):
    client = connect(mock)
    try:
        if held_ms:
            held = tok()
            add_faults(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": held_ms}})
            client.start_request(apns_headers(held), BODY)
            client.pump(lambda: connection_entry(mock, client)["openStreams"] == 1, timeout=2)
        cid = connection_entry(mock, client)["id"]
        resp = mock.control("POST", f"/v1/connections/{cid}/drain", {"maxMs": 400})
        assert resp.status == 200, resp.body
        assert client.wait_closed(2)
        assert client.close_kind == "eof"
    finally:
        client.close()
    wait_no_connections(mock)
    events = [e for e in mock.get_json(f"/v1/events?connectionId={cid}")["events"] if e["kind"] == "close"]
    assert len(events) == 1, events
    assert events[0]["origin"] == "command", events[0]


def test_a_rolling_restart_close_is_one_close_event(mock):
    client = connect(mock)
    try:
        cid = connection_entry(mock, client)["id"]
        resp = mock.control(
            "POST", "/v1/faults",
            {"scenario": "rolling-restart", "parameters": {"windowMs": 100, "drainMs": 1000, "seed": 3}})
        assert resp.status == 201, resp.body
        assert client.wait_closed(2)
    finally:
        client.close()
    wait_no_connections(mock)
    events = [e for e in mock.get_json(f"/v1/events?connectionId={cid}")["events"] if e["kind"] == "close"]
    assert len(events) == 1, events
    assert (events[0]["origin"], events[0]["action"]) == ("scenario", "rolling-restart"), events[0]
