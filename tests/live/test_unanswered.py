"""Every way a stream can end without an answer, checked three ways against each other: what the
client saw on the wire, the push's record, and /v1/stats (issue 13; docs/field-cases.md C1, C3, C4).

A record must never say more than the sender got: a stream that received no response HEADERS has
`"status": null` and `"unanswered"` naming why (the connection was closed or reset by the server or
the client, it was above a GOAWAY's last-stream-id, or the stream was reset by either side), and
/v1/stats counts it under byStatus "0", never under the status it would have had.
"""

from __future__ import annotations

import time
import uuid

import pytest

from livelib import wait_no_connections, connection_entry, FRAME_GOAWAY, FRAME_HEADERS, FRAME_PING, apns_headers, h2_client_for, raw_frame

BODY = b'{"aps":{"alert":"unanswered"}}'
CANCEL = 8


def tok() -> str:
    return (uuid.uuid4().hex + uuid.uuid4().hex)[:64]


@pytest.fixture
def mock(server_factory):
    return server_factory("--drain-timeout", "1")


def add_faults(server, rules):
    resp = server.control("POST", "/v1/faults", rules)
    assert resp.status == 201, (rules, resp.status, resp.body)
    return [rule["id"] for rule in resp.json["faults"]]


def connect(server):
    client = h2_client_for(server.listener, tls_bio=True)
    client.wait_for_settings()
    client.raw_after_goaway = True  # keep reading frames after a GOAWAY
    return client


def connection_id(server, client):
    return connection_entry(server, client)["id"]


def seen_status(client, sid):
    """The :status the client received on stream `sid`, None when no response HEADERS arrived."""
    if not any(f.type == FRAME_HEADERS and f.stream_id == sid for f in client.frames):
        return None
    return client.responses[sid].status


def records_for(server, tokens, timeout=3.0):
    """One record per token (waits until every token has one)."""
    deadline = time.monotonic() + timeout
    while True:
        found = {t: server.deliveries(token=t)["deliveries"] for t in tokens}
        if all(len(v) == 1 for v in found.values()) or time.monotonic() > deadline:
            assert all(len(v) == 1 for v in found.values()), found
            return {t: v[0] for t, v in found.items()}
        time.sleep(0.02)


def check_against_each_other(server, client, streams, expected_unanswered):
    """streams: token -> stream id. expected_unanswered: token -> cause for the unanswered ones.
    The record agrees with the wire for every stream, and the stats agree with the records."""
    wait_no_connections(server)
    records = records_for(server, list(streams))
    for token, sid in streams.items():
        record, wire = records[token], seen_status(client, sid)
        assert record["streamId"] == sid, record
        assert record["status"] == wire, (
            f"stream {sid}: the client saw status {wire}, the record says {record['status']}: {record}")
        if wire is None:
            assert record["unanswered"] == expected_unanswered[token], record
        else:
            assert token not in expected_unanswered, f"stream {sid} was answered {wire}; expected no answer"
            assert record["unanswered"] is None, record
    # The filter finds exactly the unanswered ones, by cause as well.
    unanswered = {r["seq"] for r in server.deliveries()["deliveries"] if r["status"] is None}
    assert {r["seq"] for r in server.deliveries(unanswered="any")["deliveries"]} == unanswered
    for token, cause in expected_unanswered.items():
        assert records[token]["seq"] in {r["seq"] for r in server.deliveries(unanswered=cause)["deliveries"]}
    stats = server.stats()
    by_status = {}
    for record in server.deliveries()["deliveries"]:
        key = str(record["status"] or 0)
        by_status[key] = by_status.get(key, 0) + 1
    assert stats["byStatus"] == by_status, (stats["byStatus"], by_status)


# -------------------------------------------------------------------------------------------
# A push held by a delay fault, then its connection is ended before the delay is over.
# -------------------------------------------------------------------------------------------

def end_by_command(verb, body=None):
    def end(server, client, _):
        resp = server.control("POST", f"/v1/connections/{connection_id(server, client)}/{verb}", body)
        assert resp.status == 200, resp.body
    return end


def end_by_rule(action):
    def end(server, client, trigger):
        add_faults(server, {"match": {"token": trigger}, "action": action})
        client.start_request(apns_headers(trigger), BODY)
    return end


def end_by_client_reset_stream(server, client, _):
    sid = max(client.responses)
    client.conn.reset_stream(sid, CANCEL)
    client._flush()


def end_by_client_close(server, client, _):
    client.sock.close()
    client.closed = True


@pytest.mark.parametrize(
    "end, held_cause, trigger_cause",
    [
        (end_by_command("close"), "connection-closed", None),
        (end_by_command("reset"), "connection-reset", None),
        (end_by_command("goaway", {"errorCode": "NO_ERROR", "reason": "Shutdown", "closeAfterMs": 0}),
         "connection-closed", None),
        (end_by_rule({"type": "close"}), "connection-closed", "connection-closed"),
        (end_by_rule({"type": "reset"}), "connection-reset", "connection-reset"),
        (end_by_rule({"type": "goaway", "reason": "Shutdown", "closeAfterMs": 0}),
         "connection-closed", "above-last-stream-id"),
        (end_by_client_reset_stream, "stream-reset-by-client", None),
        (end_by_client_close, "connection-closed-by-client", None),
    ],
    ids=["command-close", "command-reset", "command-goaway", "rule-close", "rule-reset", "rule-goaway",
         "client-rst-stream", "client-closes"],
)
def test_delayed_push_whose_stream_ends_unanswered(mock, end, held_cause, trigger_cause):
    held, trigger = tok(), tok()
    add_faults(mock, {"match": {"token": held}, "action": {"type": "delay", "ms": 1500}})
    client = connect(mock)
    try:
        sid_held = client.start_request(apns_headers(held), BODY)
        time.sleep(0.2)  # the push is held
        end(mock, client, trigger)
        streams = {held: sid_held}
        expected = {held: held_cause}
        if trigger_cause is not None:
            streams[trigger] = max(client.responses)
            expected[trigger] = trigger_cause
        if not client.closed:
            client.wait_closed(2.5)  # past the delay: nothing may arrive for the held stream
    finally:
        client.close()
    check_against_each_other(mock, client, streams, expected)


def test_streams_above_the_last_stream_id_of_a_rule_goaway(mock):
    """Streams 1, 3 and 5 in one write; the second push GOAWAYs with last-stream-id 1 and closes: 3 and 5
    are above the line and unanswered; 1 is whatever the client saw."""
    tokens = [tok(), tok(), tok()]
    add_faults(mock, {"match": {"nth": 2}, "action": {"type": "goaway", "lastStreamId": 1, "reason": "Shutdown"}})
    client = connect(mock)
    try:
        sids = client.send_in_one_write([(apns_headers(token), BODY) for token in tokens])
        assert client.wait_closed(3)
        goaways = [f for f in client.frames if f.type == FRAME_GOAWAY]
        assert goaways and int.from_bytes(goaways[0].payload[0:4], "big") == 1
    finally:
        client.close()
    check_against_each_other(
        mock, client, dict(zip(tokens, sids)),
        {tokens[1]: "above-last-stream-id", tokens[2]: "above-last-stream-id"})


@pytest.mark.parametrize(
    "action, cause",
    [({"type": "resetStream", "errorCode": "REFUSED_STREAM"}, "stream-reset-by-server"),
     ({"type": "noResponse"}, "connection-closed-by-client")],
    ids=["fault-reset-stream", "no-response-then-client-closes"],
)
def test_faults_that_leave_a_stream_unanswered_say_why(mock, action, cause):
    token = tok()
    add_faults(mock, {"match": {"token": token}, "action": action})
    client = connect(mock)
    try:
        sid = client.start_request(apns_headers(token), BODY)
        client.pump(lambda: client.responses[sid].done, timeout=0.5) if action["type"] == "resetStream" else time.sleep(0.3)
    except TimeoutError:
        pass
    finally:
        client.close()
    check_against_each_other(mock, client, {token: sid}, {token: cause})


def test_kept_open_goaway_still_answers_ping(mock):
    """RFC 9113 §6.7: a connection that is kept open after GOAWAY acknowledges PING, also once no
    stream is open."""
    token = tok()
    add_faults(mock, {"match": {"token": token}, "action": {"type": "goaway", "reason": "Shutdown", "keepOpen": True}})
    client = connect(mock)
    try:
        client.start_request(apns_headers(token), BODY)
        client.pump(lambda: client.goaway is not None, timeout=3)
        time.sleep(0.1)
        client._raw_write(raw_frame(FRAME_PING, 0, 0, b"afterGA!"))  # hyper-h2 sends none after GOAWAY
        client.pump(lambda: b"afterGA!" in client.ping_acks, timeout=2)
    finally:
        client.close()
