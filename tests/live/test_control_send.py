"""`POST /v1/send` (the console's compose form) under load and with headers HTTP/2 forbids."""

from __future__ import annotations

import threading
import time
import uuid

from livelib import TOPIC


def _send_body(headers=(("apns-topic", TOPIC),)) -> dict:
    return {"token": uuid.uuid4().hex * 2, "headers": [{"name": n, "value": v} for n, v in headers],
            "payload": {"aps": {"alert": "held"}}}


def test_sends_held_by_a_delay_wait_only_for_each_other_and_the_excess_is_refused(server_factory):
    """100 sends at once on a 3 s `delay` fault: 32 run, 32 queue on the sends' own pool and are
    answered in the next round, well inside their timeout; the other 36 are refused at once with
    429, a JSON message and retry-after (on Dispatch's shared pool, 100 sends held 15 s made 46 of
    them answer 504)."""
    server = server_factory()
    rule = server.control("POST", "/v1/faults", {"action": {"type": "delay", "ms": 3000}})
    assert rule.status == 201, rule.body
    results: list[tuple[int, float, dict, dict]] = []
    lock = threading.Lock()
    start = threading.Barrier(100)

    def one():
        start.wait()
        began = time.monotonic()
        answer = server.control("POST", "/v1/send", _send_body(), timeout=60)
        with lock:
            results.append((answer.status, time.monotonic() - began, answer.json or {}, answer.headers))

    threads = [threading.Thread(target=one) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert len(results) == 100
    statuses = sorted(status for status, *_ in results)
    assert statuses == [200] * 64 + [429] * 36, statuses
    refused = [(took, json, headers) for status, took, json, headers in results if status == 429]
    for took, json, headers in refused:
        assert took < 2.5, took
        assert headers.get("retry-after") == "1", headers
        assert json["error"].startswith("too many sends in flight: 32 sending and 32 queued"), json
    answered = sorted(took for status, took, *_ in results if status == 200)
    for status, took, json, _ in results:
        if status == 200:
            assert json["status"] == 200 and json["error"] is None and json["seq"] is not None, json
    # Two rounds of 3 s: the first 32 about 3 s, the queued 32 about 6 s; none near the 40 s timeout.
    assert 2.9 <= answered[0] and answered[31] < 5.5, answered
    assert answered[-1] < 10, answered
    assert server.stats()["requests"] == 64


def test_headers_http2_forbids_are_refused_naming_the_field(server):
    """A header value with CR/LF/NUL or a connection-specific field is a 400 naming
    `headers[N].name`/`.value`, and nothing reaches the listener (it was a 200 saying the listener
    reset the stream)."""
    before = server.stats()["requests"]
    for header, field in (((("apns-id", "a\r\nb"),), "headers[1].value"),
                          ((("apns-id", "a\x00b"),), "headers[1].value"),
                          ((("connection", "close"),), "headers[1].name"),
                          ((("transfer-encoding", "chunked"),), "headers[1].name"),
                          ((("te", "gzip"),), "headers[1].value")):
        answer = server.control("POST", "/v1/send", _send_body((("apns-topic", TOPIC), *header)))
        assert answer.status == 400, (header, answer.status, answer.body)
        assert answer.json["error"].startswith(field + ": expected "), answer.json
    assert server.stats()["requests"] == before
    allowed = server.control("POST", "/v1/send", _send_body((("apns-topic", TOPIC), ("te", "trailers"))))
    assert allowed.status == 200 and allowed.json["status"] == 200, allowed.body
