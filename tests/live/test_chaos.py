"""The chaos senders used to script by hand, seen from the wire (issue 13, "What is missing"):
`respond` with a status alone, seeded latency distributions, connections chosen by share, a
degradation ramp, the per-connection stream-rate limit and the rolling restart.

Every test drives the real binary over hyper-h2 connections whose raw frames carry their arrival
time (time.monotonic()); timings are asserted with tolerances, never by sleeping and hoping. Each
seeded behaviour is run twice (two fresh servers, the same seed) and must give the same outcome
sequence; each fault names its rule and action in the delivery record, and what is done to a
connection is a connection event.
"""

from __future__ import annotations

import re
import time

import pytest

from livelib import FRAME_GOAWAY, FRAME_HEADERS, FRAME_RST_STREAM, apns_headers
from test_faults import (
    BODY,
    SHUTDOWN,
    SLACK,
    add_fault,
    assert_error_answer,
    assert_fault,
    connect,
    connection_entry,
    parse_goaway,
    push_h2,
    record_of,
    records,
    stream_frames,
    tok,
)

NO_ERROR, ENHANCE_YOUR_CALM = 0, 11


@pytest.fixture
def mock(server_factory):
    return server_factory("--drain-timeout", "1")


def drawn_delay(record) -> int:
    """The milliseconds a drawn `delay` waited, from the record's fault description."""
    found = re.search(r"delay (\d+) ms", record["fault"]["description"])
    assert found, record["fault"]
    return int(found.group(1))


def pump_all(clients, until, timeout, what):
    """Reads every open client in turn until until() holds."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout}s")
        for client in clients:
            if not client.closed:
                client._receive_once(0.005)
                client._send_pending_data()


# --------------------------------------------------------------------------------------------
# respond with a status alone
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, reason",
    [(503, "ServiceUnavailable"), (500, "InternalServerError"), (429, "TooManyRequests"), (410, "Unregistered")],
)
def test_respond_status_alone_takes_apples_reason(mock, status, reason):
    token = tok()
    rule = add_fault(mock, {"match": {"token": token}, "action": {"type": "respond", "status": status}})
    client = connect(mock)
    try:
        assert_error_answer(client, push_h2(client, token), status, reason)
    finally:
        client.close()
    record = record_of(mock, token)
    assert (record["status"], record["reason"]) == (status, reason), record
    assert_fault(record, rule, "respond")


def test_respond_400_alone_is_refused_naming_the_reasons(mock):
    resp = mock.control("POST", "/v1/faults", {"action": {"type": "respond", "status": 400}})
    assert resp.status == 400, resp.body
    assert "required with status 400" in resp.json["error"] and "BadDeviceToken" in resp.json["error"], resp.json


# --------------------------------------------------------------------------------------------
# latency distributions
# --------------------------------------------------------------------------------------------


def uniform_delays(server, seed, count=5):
    """Pushes `count` times, one after the other, under a seeded uniform 200-400 ms delay;
    returns the drawn delays and checks each answer came after its own."""
    token = tok()
    rule = add_fault(
        server, {"match": {"token": token}, "action": {"type": "delay", "minMs": 200, "maxMs": 400, "seed": seed}}
    )
    client = connect(server)
    waited = []
    try:
        for _ in range(count):
            t0 = time.monotonic()
            resp = push_h2(client, token)
            assert resp.status == 200, resp
            waited.append(stream_frames(client, resp.stream_id)[0].at - t0)
    finally:
        client.close()
    found = records(server, token, count)
    drawn = [drawn_delay(r) for r in found]
    for record in found:
        assert record["status"] == 200, record
        assert_fault(record, rule, "delay")
    for ms, seconds in zip(drawn, waited):
        assert 200 <= ms <= 400, drawn
        assert ms / 1000 - SLACK <= seconds < ms / 1000 + 0.5, (drawn, waited)
    return drawn


def test_uniform_delay_is_seeded_and_within_range(server_factory):
    first = uniform_delays(server_factory(), seed=21)
    second = uniform_delays(server_factory(), seed=21)
    assert first == second, (first, second)
    assert len(set(first)) > 1, first


def test_log_normal_delay_waits_its_draw(mock):
    token = tok()
    rule = add_fault(
        mock, {"match": {"token": token}, "action": {"type": "delay", "medianMs": 250, "spread": 0.3, "seed": 4}}
    )
    client = connect(mock)
    try:
        t0 = time.monotonic()
        resp = push_h2(client, token)
        waited = stream_frames(client, resp.stream_id)[0].at - t0
    finally:
        client.close()
    record = record_of(mock, token)
    assert_fault(record, rule, "delay")
    ms = drawn_delay(record)
    assert 80 <= ms <= 800, ms  # the median 250 ms within about 3.8 sigma
    assert ms / 1000 - SLACK <= waited < ms / 1000 + 0.5, (ms, waited)


# --------------------------------------------------------------------------------------------
# connections chosen by share, counting reconnections
# --------------------------------------------------------------------------------------------


def share_outcomes(server, seed, connections=12):
    """One connection after the other (a sender reconnecting), two pushes each, under a rule
    taking a quarter of connections; the statuses per connection."""
    rule = add_fault(
        server,
        {"match": {"connectionShare": 0.25, "seed": seed}, "action": {"type": "respond", "status": 503}},
    )
    outcomes = []
    for _ in range(connections):
        client = connect(server)
        try:
            outcomes.append(tuple(push_h2(client, tok()).status for _ in range(2)))
        finally:
            client.close()
    for statuses in outcomes:
        assert statuses in ((200, 200), (503, 503)), outcomes  # a connection is in or out for good
    faulted = [r for r in server.deliveries()["deliveries"] if r["fault"]]
    for record in faulted:
        assert_fault(record, rule, "respond")
    return outcomes


def test_connection_share_is_seeded_and_counts_reconnections(server_factory):
    first = share_outcomes(server_factory(), seed=8)
    second = share_outcomes(server_factory(), seed=8)
    assert first == second, (first, second)
    hit = sum(1 for s in first if s[0] == 503)
    assert 1 <= hit <= 8, first  # reconnections are drawn anew: some hit, not all


# --------------------------------------------------------------------------------------------
# degradation ramp
# --------------------------------------------------------------------------------------------


def test_probability_ramp_rises_from_nothing_to_everything(mock):
    rule = add_fault(
        mock,
        {
            "match": {"probabilityRamp": {"from": 0, "to": 1, "durationMs": 2000}, "seed": 3},
            "action": {"type": "respond", "status": 500},
        },
    )
    started = mock.get_json(f"/v1/faults/{rule}")["rampStartedAt"]
    client = connect(mock)
    try:
        early = [push_h2(client, tok()).status for _ in range(5)]
        elapsed = time.time() * 1000 - started
        wait_until = time.monotonic() + max(0.0, (2000 - elapsed) / 1000) + 0.05
        while time.monotonic() < wait_until:
            client.ping(b"rampwait")  # keeps reading while the ramp climbs
            client.ping_acks.clear()
            time.sleep(0.05)
        late = [push_h2(client, tok()).status for _ in range(5)]
    finally:
        client.close()
    assert early.count(500) <= 1, early  # at most a few percent in the first milliseconds
    assert late == [500] * 5, late


# --------------------------------------------------------------------------------------------
# per-connection stream-rate limit
# --------------------------------------------------------------------------------------------


def test_stream_rate_limit_refuses_then_goes_away(mock):
    rule = add_fault(mock, {"action": {"type": "streamRateLimit", "perSecond": 1, "burst": 2, "goawayAfter": 2}})
    client = connect(mock)
    client.raw_after_goaway = True
    tokens = [tok() for _ in range(5)]
    try:
        sids = [client.start_request(apns_headers(t), BODY) for t in tokens]
        assert sids == [1, 3, 5, 7, 9]
        assert client.wait_closed(3.0), "the connection was not closed after the GOAWAY"
    finally:
        client.close()
    assert [f.type for f in stream_frames(client, 1)][:1] == [FRAME_HEADERS]
    assert [f.type for f in stream_frames(client, 3)][:1] == [FRAME_HEADERS]
    for sid in (5, 7):
        frames = stream_frames(client, sid)
        assert [f.type for f in frames] == [FRAME_RST_STREAM], frames
        assert int.from_bytes(frames[0].payload[:4], "big") == ENHANCE_YOUR_CALM
    assert stream_frames(client, 9) == []
    goaways = [f for f in client.frames if f.type == FRAME_GOAWAY]
    assert len(goaways) == 1, goaways
    assert parse_goaway(goaways[0])[:2] == (7, ENHANCE_YOUR_CALM)  # stream 9 left above the line
    answered = [record_of(mock, t) for t in tokens]
    assert [r["status"] for r in answered] == [200, 200, None, None, None], answered
    for record in answered[2:]:
        assert_fault(record, rule, "streamRateLimit")
    events = mock.get_json(f"/v1/events?kind=goaway&ruleId={rule}")["events"]
    assert len(events) == 1 and events[0]["details"]["errorCode"] == "ENHANCE_YOUR_CALM", events
    assert events[0]["action"] == "streamRateLimit", events


# --------------------------------------------------------------------------------------------
# rolling restart
# --------------------------------------------------------------------------------------------


def rolling_restart(server, seed):
    """Three connections open (one with a stream in flight), a rolling restart over 1 s, a
    fourth connection opened after it; returns the schedule as the answer gives it."""
    slow = tok()
    add_fault(server, {"match": {"token": slow}, "action": {"type": "delay", "ms": 1500}})
    old = [connect(server) for _ in range(3)]
    for client in old:
        client.raw_after_goaway = True  # the stream in flight is answered after the GOAWAY
    ids = [connection_entry(server, c)["id"] for c in old]
    in_flight = old[0].start_request(apns_headers(slow), BODY)
    pump_all(old, lambda: connection_entry(server, old[0])["openStreams"] == 1, 2, "the slow stream to arrive")
    t0 = time.monotonic()
    resp = server.control(
        "POST", "/v1/faults",
        {"scenario": "rolling-restart", "parameters": {"windowMs": 1000, "drainMs": 3000, "seed": seed}},
    )
    assert resp.status == 201, resp.body
    answer = resp.json["rollingRestart"]
    assert resp.json["faults"] == [] and (answer["seed"], answer["windowMs"], answer["drainMs"]) == (seed, 1000, 3000)
    schedule = {c["id"]: c["goawayAfterMs"] for c in answer["connections"]}
    assert sorted(schedule) == ids, (schedule, ids)
    late = connect(server)
    clients = old + [late]
    try:
        pump_all(clients, lambda: all(c.closed for c in old), 4, "every old connection drained and closed")
        for client, cid in zip(old, ids):
            goaways = [f for f in client.frames if f.type == FRAME_GOAWAY]
            assert len(goaways) == 1, goaways
            last, code, debug = parse_goaway(goaways[0])
            assert (code, debug) == (NO_ERROR, SHUTDOWN), (code, debug)
            at = goaways[0].at - t0
            due = schedule[cid] / 1000
            assert due - SLACK <= at < due + 0.5, f"connection {cid}: GOAWAY after {at:.3f}s, due {due:.3f}s"
            assert client.close_kind == "eof", client.close_kind
        # The stream in flight was answered, and only then was its connection closed.
        slow_resp = old[0].responses[in_flight]
        assert slow_resp.status == 200, slow_resp
        answer_at = stream_frames(old[0], in_flight)[0].at
        assert answer_at - t0 >= 1.5 - SLACK - 0.1
        assert old[0].closed_at is None or old[0].closed_at >= answer_at
        # The connection opened after the start is left alone.
        assert late.goaway is None and not late.closed
        assert push_h2(late, tok()).status == 200
    finally:
        for client in clients:
            client.close()
    events = server.get_json("/v1/events?kind=goaway&origin=scenario")["events"]
    assert sorted(e["connectionId"] for e in events) == ids, events
    for event in events:
        assert event["action"] == "rolling-restart" and event["details"]["drain"] is True, event
        assert event["details"]["reason"] == "Shutdown" and event["details"]["closeAfterMs"] == 3000, event
    return [schedule[i] for i in ids]


def test_rolling_restart_drains_the_open_connections_only(server_factory):
    first = rolling_restart(server_factory(), seed=5)
    second = rolling_restart(server_factory(), seed=5)
    assert first == second, (first, second)


def test_rolling_restart_in_progress_is_listed_and_cancelled_by_delete(server_factory):
    """GET /v1/faults shows a rolling restart until its last GOAWAY; a second one is refused (409);
    DELETE /v1/faults cancels the GOAWAYs still to come, so it cannot reach a later test."""
    server = server_factory()
    clients = [connect(server) for _ in range(2)]
    ids = [connection_entry(server, c)["id"] for c in clients]
    body = {"scenario": "rolling-restart", "parameters": {"windowMs": 1500, "drainMs": 500, "seed": 11}}
    try:
        resp = server.control("POST", "/v1/faults", body)
        assert resp.status == 201, resp.body
        listed = server.get_json("/v1/faults")
        running = listed["rollingRestart"]
        assert (running["seed"], running["windowMs"], running["drainMs"]) == (11, 1500, 500), running
        assert [c["id"] for c in running["connections"]] == ids, running
        assert 0 <= running["elapsedMs"] < 1500, running
        again = server.control("POST", "/v1/faults", body)
        assert again.status == 409 and "DELETE /v1/faults cancels it" in again.json["error"], again.body
        cancelled = server.control("DELETE", "/v1/faults")
        assert cancelled.status == 200 and cancelled.json == {"removed": 0, "rollingRestartCancelled": True}, cancelled.body
        assert "rollingRestart" not in server.get_json("/v1/faults")
        # Past the whole window: neither connection got a GOAWAY, both still answer.
        deadline = time.monotonic() + 1.7
        pump_all(clients, lambda: time.monotonic() >= deadline, 3, "the window to pass")
        for client in clients:
            assert client.goaway is None and not client.closed, client.frames
            assert push_h2(client, tok()).status == 200
    finally:
        for client in clients:
            client.close()
    assert server.get_json("/v1/events?kind=goaway")["events"] == []
