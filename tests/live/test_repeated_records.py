"""Records of pushes that repeat the previous push on their connection (written from the previous
stored record with the receive time, stream id and generated IDs rewritten), checked against the
answers over real sockets: under a ring so small that another connection's push evicts the model
while dumps read the ring, for every shape of record (a stored body past 16 KB, a 5 KB voip
payload, a header list near 8000 bytes, an echoed lowercase apns-id, rejections) across stream
ids whose varints change length, and with fault rules firing between repeats."""

from __future__ import annotations

import json
import threading
import uuid

from livelib import LOWER_UUID, UPPER_UUID, apns_headers, h2_client_for, run_alongside

BODY = b'{"aps":{"alert":"again"}}'
PER_PUSH = ("seq", "receivedAt", "streamId", "apnsId", "uniqueId")


def _expected_names(status: int, sandbox: bool = True) -> list[str]:
    return (["content-type"] if status != 200 else []) + ["apns-id"] + (["apns-unique-id"] if sandbox else [])


def _key(response) -> tuple:
    return response.header("apns-id"), response.header("apns-unique-id"), response.stream_id


def test_tiny_ring_with_connections_evicting_each_others_models_while_dumped(server_factory):
    """--max-records 2, four connections each repeating one push (two of them the same push),
    and two readers dumping the ring meanwhile: every record read is the one answered (same IDs,
    stream, status, payload), each connection's records carry one connection id, and nothing
    crashes."""
    server = server_factory("--max-records", "2")
    token = uuid.uuid4().hex * 2
    pushes = [
        (apns_headers(token), BODY),
        (apns_headers(token), BODY),
        (apns_headers(token, extra=[("apns-collapse-id", "c")]), b'{"aps":{"alert":"other"}}'),
        (apns_headers(token, push_type="bogus"), BODY),  # 400 InvalidPushType, repeated
    ]
    answers: dict[tuple, tuple[int, int, bytes]] = {}
    dumped: list[dict] = []
    errors: list[str] = []
    done = threading.Event()
    lock = threading.Lock()

    def pusher(index: int):
        headers, body = pushes[index]
        client = h2_client_for(server.listener, timeout=30)
        try:
            for response in client.run_many([(headers, body)] * 400, concurrency=16, timeout=120):
                if [n for n, _ in response.headers if n != ":status"] != _expected_names(response.status):
                    errors.append(f"header fields {response.headers}")
                with lock:
                    answers[_key(response)] = (index, response.status, body)
        except Exception as exc:  # reported below, with the server's state
            errors.append(f"connection {index}: {exc!r}")
        finally:
            client.close()

    def reader():
        while not done.is_set():
            page = server.deliveries(token=token, limit=100000)
            dumped.extend(page["deliveries"])

    pushers = [threading.Thread(target=pusher, args=(i,)) for i in range(len(pushes))]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    run_alongside(pushers, readers, done)
    assert not errors, errors[:5]
    assert server.alive(), server.stderr_text()
    assert len(answers) == 1600
    final = server.deliveries(limit=100)["deliveries"]
    assert len(final) == 2
    assert dumped, "the readers saw records"
    connection_of: dict[int, int] = {}
    for record in dumped + final:
        found = answers.get((record["apnsId"], record["uniqueId"], record["streamId"]))
        assert found is not None, f"record {record['seq']} answers no response: {record}"
        index, status, body = found
        assert record["status"] == status, record
        assert record["payload"] == json.loads(body), record
        assert record["path"] == f"/3/device/{token}"
        assert connection_of.setdefault(index, record["connectionId"]) == record["connectionId"], record
    stats = server.stats()
    assert stats["requests"] == 1600 and stats["evicted"] == 1598, stats


def test_every_shape_of_record_repeats_exactly_past_stream_id_varint_boundaries(server_factory):
    """One connection per shape pushes it 140 times (stream ids up to 279: one- and two-byte
    varints): every record equals the first but for the per-push fields, answers and records
    carry the same IDs, and generated IDs are new each time."""
    server = server_factory()
    token = uuid.uuid4().hex * 2
    echoed = str(uuid.uuid4()).lower()
    shapes = {
        "accepted, uppercase token": (apns_headers(token.upper()), BODY),
        "collapse id, priority, expiration": (apns_headers(token, extra=[
            ("apns-collapse-id", "c1"), ("apns-priority", "5"), ("apns-expiration", "1900000000")]), BODY),
        "lint: no push type": (apns_headers(token, push_type=None), b'{"aps":{"content-available":1}}'),
        "413, stored body past 16 KB": (apns_headers(token), b'{"aps":{"alert":"' + b"x" * 20000 + b'"}}'),
        "voip, 5 KB": (apns_headers(token, topic="com.example.app.voip", push_type="voip"),
                       b'{"aps":{},"v":"' + b"v" * 5000 + b'"}'),
        "header list near 8000 bytes": (apns_headers(token, extra=[(f"x-a{i}", "v" * 150) for i in range(40)]), BODY),
        "echoed lowercase apns-id": (apns_headers(token, extra=[("apns-id", echoed)]), BODY),
        "400 PayloadEmpty": (apns_headers(token), b"not json"),
        "405": (apns_headers(token, method="PUT"), BODY),
    }
    after = server.stats()["lastSeq"]
    results: dict[str, list] = {}

    def run(name: str):
        headers, body = shapes[name]
        client = h2_client_for(server.listener, timeout=30)
        try:
            results[name] = client.run_many([(headers, body)] * 140, concurrency=7, timeout=120)
        finally:
            client.close()

    threads = [threading.Thread(target=run, args=(name,)) for name in shapes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(results) == set(shapes), "every connection finished"
    records = server.deliveries(after=after, limit=100000)["deliveries"]
    assert len(records) == 140 * len(shapes)
    by_key = {(r["apnsId"], r["uniqueId"], r["streamId"]): r for r in records}
    for name, responses in results.items():
        mine = []
        for response in responses:
            assert [n for n, _ in response.headers if n != ":status"] == _expected_names(response.status), (name, response.headers)
            record = by_key.get(_key(response))
            assert record is not None, (name, response.headers)
            assert record["status"] == response.status, name
            mine.append(record)
        first = {k: v for k, v in mine[0].items() if k not in PER_PUSH}
        for record in mine[1:]:
            assert {k: v for k, v in record.items() if k not in PER_PUSH} == first, (name, record["seq"])
        assert max(r["streamId"] for r in mine) == 279, name
        ids = [r["apnsId"] for r in mine]
        if name.startswith("echoed"):
            assert set(ids) == {echoed}
        else:
            assert len(set(ids)) == 140 and all(UPPER_UUID.match(i) for i in ids), name
        assert len({r["uniqueId"] for r in mine}) == 140 and all(LOWER_UUID.match(r["uniqueId"]) for r in mine), name
    big = [r for r in records if r["payloadBytes"] == 20020]
    assert len(big) == 140 and all(r["status"] == 413 for r in big)


def test_fault_rules_firing_between_repeats_leave_each_record_its_own_answer(server_factory):
    """Rules answering 500, 410 (with a timestamp), or a delayed 503, and plain delays, fire on some
    of a connection's repeated pushes: every answer's status, reason, timestamp and IDs are its
    record's, faulted records name their rule, and the unfaulted ones between them name none."""
    server = server_factory()
    rules = [
        {"match": {"everyKth": 3}, "action": {"type": "respond", "status": 500, "reason": "InternalServerError"}},
        {"match": {"everyKth": 5}, "action": {"type": "delay", "ms": 5}},
        {"match": {"everyKth": 7}, "action": {"type": "respond", "status": 410, "reason": "Unregistered"}},
        {"match": {"everyKth": 11}, "action": {"type": "delay", "ms": 3, "then": {
            "type": "respond", "status": 503, "reason": "ServiceUnavailable"}}},
    ]
    posted = server.control("POST", "/v1/faults", rules)
    assert posted.status == 201, posted.body
    token = uuid.uuid4().hex * 2
    client = h2_client_for(server.listener, timeout=30)
    try:
        responses = client.run_many([(apns_headers(token), BODY)] * 300, concurrency=10, timeout=60)
    finally:
        client.close()
    records = {(r["apnsId"], r["uniqueId"], r["streamId"]): r
               for r in server.deliveries(token=token, limit=1000)["deliveries"]}
    assert len(records) == 300
    seen = set()
    for response in responses:
        record = records[_key(response)]
        assert [n for n, _ in response.headers if n != ":status"] == _expected_names(response.status), response.headers
        assert record["status"] == response.status
        if response.status == 200:
            assert record["reason"] is None and response.body == b""
        else:
            body = response.json()
            assert (body["reason"], body.get("timestamp")) == (record["reason"], record["timestamp"]), (body, record)
            assert record["fault"] is not None and record["fault"]["action"] in ("respond", "delay")
        seen.add((response.status, record["fault"]["action"] if record["fault"] else None))
    assert seen == {(200, None), (200, "delay"), (500, "respond"), (410, "respond"), (503, "delay")}, seen
