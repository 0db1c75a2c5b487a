"""docs/field-cases.md C6: a soak of 1000 concurrent streams on one connection, some of them reset by the
client, for tens of seconds. Open streams must return to 0 once the connection is idle and the
server's memory must stay flat.

Every push is held for HOLD_MS by a delay fault, so each wave really has 1000 streams open on
the server at once. In each wave one stream in ten is reset before its request is complete
(HEADERS without END_STREAM, then RST_STREAM CANCEL) and one in ten after it is complete, while
the server holds it (its delayed answer then targets a closed stream); the rest are answered.
A shorter neighbour has the server reset a seeded fifth of the held streams instead.

The soak lasts MOCK_APNS_SOAK_SECONDS (default 40) so that CI stays short; set it higher (e.g.
600) for a long run. The record ring is bounded small so that records stop adding memory after
the first waves: what still grows after that is a leak."""

from __future__ import annotations

import os
import time
import uuid

import h2.errors

from livelib import apns_headers, h2_client_for, rss_kib

SOAK_SECONDS = float(os.environ.get("MOCK_APNS_SOAK_SECONDS", "40"))
STREAMS = 1000
# Long enough that a busy 2-core machine reads all 1000 streams of a wave before the first is
# answered (at 1000 ms, load average 9 saw only 570 open at once).
HOLD_MS = 2500
BODY = b'{"aps":{"alert":"soak"}}'
CANCEL = h2.errors.ErrorCodes.CANCEL


def open_streams(server) -> int:
    connections = server.get_json("/v1/connections")["connections"]
    assert len(connections) == 1, connections
    return connections[0]["openStreams"]


def run_wave(client, server, wave: int, check_peak: bool) -> tuple[int, int]:
    """One wave of STREAMS concurrent streams; returns (answered, reset) counts."""
    token_base = uuid.uuid4().hex
    unfinished, finished_then_reset, answered = [], [], []
    for i in range(STREAMS):
        token = f"{token_base}{i:032x}"
        headers = apns_headers(token)
        if i % 10 == 0:
            sid = client.conn.get_next_available_stream_id()
            client.conn.send_headers(sid, headers, end_stream=False)  # the body never follows
            unfinished.append(sid)
        else:
            sid = client.start_request(headers, BODY)
            (finished_then_reset if i % 10 == 1 else answered).append(sid)
    client._send_pending_data()
    if check_peak:
        # All STREAMS are open on the server at once (nothing is answered before HOLD_MS).
        deadline = time.monotonic() + HOLD_MS / 2000
        peak = open_streams(server)
        while peak < STREAMS and time.monotonic() < deadline:
            client._receive_once(0.01)
            peak = max(peak, open_streams(server))
        assert peak == STREAMS, f"wave {wave}: only {peak} of {STREAMS} streams open on the server at once"
    for sid in unfinished + finished_then_reset:
        client.conn.reset_stream(sid, error_code=CANCEL)
    client._flush()
    client.pump(lambda: all(client.responses[sid].done for sid in answered), timeout=HOLD_MS / 1000 + 20)
    statuses = {client.responses[sid].status for sid in answered}
    assert statuses == {200}, f"wave {wave}: statuses {statuses}"
    for sid in unfinished + finished_then_reset + answered:
        client.responses.pop(sid, None)
    client.frames.clear()  # the client's own frame log must not grow for the whole soak
    return len(answered), len(unfinished) + len(finished_then_reset)


def test_soak_of_1000_concurrent_streams_with_resets(server_factory):
    server = server_factory("--max-records", "2000")
    rule = server.control("POST", "/v1/faults", {"description": "hold every push so the streams pile up",
                                      "action": {"type": "delay", "ms": HOLD_MS}})
    assert rule.status == 201, rule.body
    client = h2_client_for(server.listener, timeout=30)
    pid = server.proc.pid
    started = time.monotonic()
    answered = resets = waves = 0
    warm_rss = None
    try:
        client.wait_for_settings()
        while time.monotonic() - started < SOAK_SECONDS or waves < 6:
            done, reset = run_wave(client, server, waves, check_peak=waves % 5 == 0)
            answered, resets, waves = answered + done, resets + reset, waves + 1
            if waves == 3:
                warm_rss = rss_kib(pid)  # the record ring is full by now
        # Idle: every stream, answered or reset, is gone from the server.
        deadline = time.monotonic() + HOLD_MS / 1000 + 3
        while open_streams(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert open_streams(server) == 0, "streams left open on an idle connection"
        end_rss = rss_kib(pid)
        # The connection is still healthy after the soak.
        server.delete("/v1/faults")
        response = client.request(apns_headers(uuid.uuid4().hex * 2), BODY)
        assert response.status == 200
    finally:
        client.close()
    summary = (f"{waves} waves, {answered} answered, {resets} reset, "
               f"RSS {warm_rss} KiB after 3 waves, {end_rss} KiB at the end")
    print(summary)
    assert answered == waves * 800 and resets == waves * 200, summary
    # Flat: after the warm-up, growth stays within allocator noise (8 MiB or 10 %).
    assert end_rss - warm_rss <= max(8 * 1024, warm_rss // 10), summary
    stats = server.stats()
    assert stats["connectionsOpen"] == 1 or stats["connectionsOpen"] == 0
    assert server.get_json("/v1/health")["status"] == "ok"


def test_neighbour_server_resets_a_seeded_fifth_of_1000_held_streams(server_factory):
    server = server_factory("--max-records", "2000")
    reset_rule = server.control("POST", "/v1/faults", {
        "match": {"probability": 0.2, "seed": 7},
        "action": {"type": "delay", "ms": HOLD_MS, "then": {"type": "resetStream", "errorCode": "REFUSED_STREAM"}}})
    hold_rule = server.control("POST", "/v1/faults", {"action": {"type": "delay", "ms": HOLD_MS}})
    assert reset_rule.status == 201 and hold_rule.status == 201
    client = h2_client_for(server.listener, timeout=30)
    refused = answered = 0
    try:
        client.wait_for_settings()
        for wave in range(4):
            token_base = uuid.uuid4().hex
            sids = [client.start_request(apns_headers(f"{token_base}{i:032x}"), BODY) for i in range(STREAMS)]
            client._send_pending_data()
            client.pump(lambda: all(client.responses[sid].done for sid in sids), timeout=HOLD_MS / 1000 + 20)
            outcomes = [(client.responses[sid].status, client.responses[sid].reset) for sid in sids]
            assert set(outcomes) <= {(200, None), (None, h2.errors.ErrorCodes.REFUSED_STREAM)}, set(outcomes)
            refused += sum(1 for status, _ in outcomes if status is None)
            answered += sum(1 for status, _ in outcomes if status == 200)
            for sid in sids:
                client.responses.pop(sid, None)
            client.frames.clear()
        deadline = time.monotonic() + 3
        while open_streams(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert open_streams(server) == 0, "streams left open on an idle connection"
    finally:
        client.close()
    fired = {rule["id"]: rule["fired"] for rule in server.get_json("/v1/faults")["faults"]}
    reset_id, hold_id = reset_rule.json["faults"][0]["id"], hold_rule.json["faults"][0]["id"]
    assert refused == fired[reset_id] and answered == fired[hold_id], (refused, answered, fired)
    assert 0.15 * 4 * STREAMS < refused < 0.25 * 4 * STREAMS, refused
