"""Pushes repeating their connection's previous push are stored as deltas of a model record (the
connection's last push stored in full), and the model's memory must outlive the model itself
while a repeat refers to it: evicted by a tiny ring, removed by DELETE /v1/deliveries, or both
while readers dump the ring. Over real sockets, every record read back (listing, every filter,
wait, lookup by seq) must be the one its push was answered with: apns-id, apns-unique-id,
stream id, status, reason, timestamp, identity, payload. Also: stream ids whose varint changes
length against the model's, echoed against generated apns-ids, sandbox (apns-unique-id) and
production listeners, rejected and faulted repeats, strict authentication, registry changes,
hundreds of connections, and memory that stays flat over half a million repeats on a wrapping
ring."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest

from livelib import (
    LOWER_UUID,
    REPO_ROOT,
    TOPIC,
    UPPER_UUID,
    H2Response,
    apns_headers,
    binary_path,
    h2_client_for,
    rss_kib,
    run_alongside,
)

BODY = b'{"aps":{"alert":"delta"}}'
BIG_BODY = b'{"aps":{"alert":"' + b"b" * 4000 + b'"}}'
PER_PUSH = ("seq", "receivedAt", "streamId", "apnsId", "uniqueId")
AUTH = REPO_ROOT / "fixtures" / "auth"
KEYS = AUTH / "keys.json"

# Client stream ids around each length of the zigzag varint the record stores them in (1 byte up
# to 63, 2 up to 8191, 3 up to 1048575, 4 up to 134217727, 5 above); h2 lets a client skip ids.
STREAM_IDS = [1, 3, 61, 63, 65, 67, 8189, 8191, 8193, 8195, 1048573, 1048575, 1048577,
              134217727, 134217729, 2**31 - 3, 2**31 - 1]


def _two_listeners(**extra) -> dict:
    """A configuration with a plaintext sandbox and a plaintext production listener."""
    listeners = [{"name": env, "listen": "127.0.0.1:0", "environment": env, "plaintext": True, **extra}
                 for env in ("sandbox", "production")]
    return {"listeners": listeners}


def _start(server_factory, ring: int, *args: str, **extra):
    return server_factory("--max-records", str(ring), *args, config=_two_listeners(**extra), listen=None,
                          expect_listeners=2)


def _push_on(client, sid: int, headers, body: bytes) -> H2Response:
    """One request on stream `sid` (any odd id above the last one used)."""
    client.responses[sid] = H2Response(sid)
    client.conn.send_headers(sid, headers, end_stream=False)
    client._outgoing[sid] = bytearray(body)
    client._send_pending_data()
    client.pump(lambda: client.responses[sid].done)
    return client.responses[sid]


def _key(response) -> tuple:
    return response.header("apns-id"), response.header("apns-unique-id"), response.stream_id


def _record_key(record) -> tuple:
    return record["apnsId"], record["uniqueId"], record["streamId"]


def _answer(response) -> tuple:
    """(status, reason, timestamp) as answered."""
    body = json.loads(response.body) if response.body else {}
    return response.status, body.get("reason"), body.get("timestamp")


def _assert_record_is_answer(record, response, body: bytes, environment: str):
    assert _record_key(record) == _key(response), (record, response.headers)
    assert (record["status"], record["reason"], record["timestamp"]) == _answer(response), (record, response.body)
    assert record["environment"] == environment
    assert record["payloadBytes"] == len(body) and record["payload"] == json.loads(body), record["seq"]
    names = [n for n, _ in response.headers if n != ":status"]
    assert ("apns-unique-id" in names) == (environment == "sandbox"), names
    if environment == "sandbox":
        assert LOWER_UUID.match(record["uniqueId"]), record["uniqueId"]


def test_repeats_on_rings_of_one_to_three_read_back_as_answered_across_stream_id_varint_lengths(server_factory):
    """Rings of 1, 2 and 3 records (the repeat evicts its own model, or the next one does), one
    connection per environment pushing one push on stream ids whose varint grows from 1 to 5
    bytes against the model's 1: each record, read right after its push by listing and by seq,
    is its answer, and equals the first record but for the per-push fields."""
    for ring in (1, 2, 3):
        server = _start(server_factory, ring)
        token = uuid.uuid4().hex * 2
        for environment in ("sandbox", "production"):
            client = h2_client_for(server.listener_for(environment))
            records = []
            try:
                for sid in STREAM_IDS:
                    last = server.stats()["lastSeq"]
                    response = _push_on(client, sid, apns_headers(token), BODY)
                    assert response.status == 200, (ring, sid, response.body)
                    found = server.deliveries(after=last)["deliveries"]
                    assert len(found) == 1, (ring, sid, found)
                    record = found[0]
                    _assert_record_is_answer(record, response, BODY, environment)
                    assert server.get_json(f"/v1/deliveries/{record['seq']}") == record
                    records.append(record)
            finally:
                client.close()
            first = {k: v for k, v in records[0].items() if k not in PER_PUSH}
            for record in records[1:]:
                assert {k: v for k, v in record.items() if k not in PER_PUSH} == first, (ring, record)
            assert [r["streamId"] for r in records] == STREAM_IDS
            assert len({r["apnsId"] for r in records}) == len(STREAM_IDS)
            assert all(UPPER_UUID.match(r["apnsId"]) for r in records)
        assert server.stats()["records"] == ring


def test_every_filter_wait_and_lookup_find_repeats_whose_model_left_the_ring(server_factory):
    """--max-records 3 and five pushes per shape on one connection: the three records left are
    repeats whose model was evicted. Each is found by every filter that fits it (alone, and all
    together), by wait and by seq; filters that do not fit it miss it; the evicted model's
    apns-id finds nothing. Shapes: accepted with a collapse id, 400 InvalidPushType, 400
    BadDeviceToken, an echoed lowercase apns-id, an apns-id that is no UUID (400 BadMessageId,
    generated apns-id), on a sandbox and a production listener."""
    server = _start(server_factory, 3)
    token = uuid.uuid4().hex * 2
    shapes = {
        "accepted": (token, apns_headers(token, extra=[("apns-collapse-id", "cid")])),
        "InvalidPushType": (token, apns_headers(token, push_type="bogus")),
        "BadDeviceToken": ("abc", apns_headers("abc")),
        "echoed": (token, apns_headers(token, extra=[("apns-id", str(uuid.uuid4()))])),
        "BadMessageId": (token, apns_headers(token, extra=[("apns-id", "not-a-uuid")])),
    }
    for environment in ("sandbox", "production"):
        other = "production" if environment == "sandbox" else "sandbox"
        for name, (device, headers) in shapes.items():
            client = h2_client_for(server.listener_for(environment))
            try:
                responses = [client.request(headers, BODY) for _ in range(5)]
            finally:
                client.close()
            by_stream = {r.stream_id: r for r in responses}
            records = server.deliveries()["deliveries"]
            assert [r["streamId"] for r in records] == [5, 7, 9], (name, records)
            echoed = name == "echoed"
            for record in records:
                _assert_record_is_answer(record, by_stream[record["streamId"]], BODY, environment)
                fits = {"token": device, "topic": TOPIC, "pushType": record["pushType"], "status": record["status"],
                        "environment": environment, "apnsId": record["apnsId"].swapcase()}
                if record["collapseId"]:
                    fits["collapseId"] = record["collapseId"]
                if record["reason"]:
                    fits["reason"] = record["reason"]
                for field, value in fits.items():
                    seqs = [r["seq"] for r in server.deliveries(**{field: value})["deliveries"]]
                    assert record["seq"] in seqs, (environment, name, field, value, seqs)
                together = [r["seq"] for r in server.deliveries(after=record["seq"] - 1, **fits)["deliveries"]]
                assert together[0] == record["seq"] and (echoed or together == [record["seq"]]), (name, together)
                misses = {"token": "ab" * 32, "topic": "com.example.other", "pushType": "voip", "status": 201,
                          "environment": other, "apnsId": str(uuid.uuid4()), "collapseId": "other",
                          "reason": "TopicDisallowed", "after": record["seq"]}
                for field, value in misses.items():
                    seqs = [r["seq"] for r in server.deliveries(**{field: value})["deliveries"]]
                    assert record["seq"] not in seqs, (environment, name, field, value)
                query = urllib.parse.urlencode({**fits, "after": record["seq"] - 1, "count": 1, "timeoutMs": 2000})
                waited = server.get_json(f"/v1/deliveries/wait?{query}")
                assert waited["complete"] and waited["deliveries"][0] == record, (name, waited)
                assert server.get_json(f"/v1/deliveries/{record['seq']}") == record
            model = responses[0].header("apns-id")
            found = server.deliveries(apnsId=model)["deliveries"]
            assert found == (records if echoed else []), (name, found)
            assert server.get(f"/v1/deliveries/{records[0]['seq'] - 2}").status == 404


def test_clear_between_repeats_leaves_the_repeats_after_it_whole(server_factory):
    """DELETE /v1/deliveries between repeats of one push, on a ring large enough to keep them all:
    the cleared ones are gone (404), the ones after each clear read back as answered, however
    many clears came between them and their connection's first push."""
    server = _start(server_factory, 8)
    token = uuid.uuid4().hex * 2
    client = h2_client_for(server.listener_for("sandbox"))
    try:
        cleared: list[int] = []
        for round_ in range(4):
            responses = client.run_many([(apns_headers(token), BIG_BODY)] * 3, concurrency=3)
            records = server.deliveries()["deliveries"]
            assert len(records) == 3, (round_, records)
            by_key = {_record_key(r): r for r in records}
            for response in responses:
                _assert_record_is_answer(by_key[_key(response)], response, BIG_BODY, "sandbox")
            assert all(server.get(f"/v1/deliveries/{seq}").status == 404 for seq in cleared)
            assert server.delete("/v1/deliveries").json["cleared"] == 3
            cleared += [r["seq"] for r in records]
        assert server.deliveries()["deliveries"] == []
    finally:
        client.close()


@pytest.mark.parametrize("ring,workers", [(1, 2), (2, 4), (64, 1)])
def test_writers_readers_and_clears_at_once_on_a_wrapping_ring(server_factory, ring, workers):
    """24 TLS connections repeat one push each (accepted, 4 KB, BadDeviceToken, an echoed
    apns-id with 4 KB), while fault rules answer every 4th push 500 and delay every 9th, two
    readers dump the ring (all, by token, by status, wait) and a third clears it every few
    milliseconds: every record read is an answer (IDs, stream, status, reason, payload, fault,
    its connection's id), the server lives, and it counted every push."""
    server = server_factory("--max-records", str(ring), "--workers", str(workers))
    rules = [{"match": {"everyKth": 4}, "action": {"type": "respond", "status": 500, "reason": "InternalServerError"}},
             {"match": {"everyKth": 9}, "action": {"type": "delay", "ms": 2}}]
    assert server.control("POST", "/v1/faults", rules).status == 201
    token = uuid.uuid4().hex * 2
    shapes = [(apns_headers(token), BODY), (apns_headers(token), BIG_BODY), (apns_headers("abc"), BODY),
              (apns_headers(token, extra=[("apns-id", str(uuid.uuid4()).upper())]), BIG_BODY)]
    answers: dict[tuple, tuple] = {}
    read: list[tuple[dict, dict]] = []
    errors: list[str] = []
    lock = threading.Lock()
    done = threading.Event()

    def pusher(index: int):
        headers, body = shapes[index % len(shapes)]
        client = h2_client_for(server.listener, timeout=30)
        try:
            for _ in range(5):
                for response in client.run_many([(headers, body)] * 20, concurrency=8, timeout=60):
                    with lock:
                        answers[_key(response)] = (index, _answer(response), body)
        except Exception as exc:  # reported below
            errors.append(f"connection {index}: {exc!r}")
        finally:
            client.close()

    def reader():
        try:
            while not done.is_set():
                for query in ({}, {"token": token}, {"status": 500}, {"status": 200}):
                    read.extend((query, r) for r in server.deliveries(**query)["deliveries"])
                waited = server.get_json(f"/v1/deliveries/wait?count=2&timeoutMs=20&token={token}")
                read.extend(({"token": token}, r) for r in waited["deliveries"])
        except Exception as exc:
            errors.append(f"reader: {exc!r}")

    def clearer():
        while not done.is_set():
            if server.delete("/v1/deliveries").status != 200:
                errors.append("clear failed")
            time.sleep(0.003)

    pushers = [threading.Thread(target=pusher, args=(i,)) for i in range(24)]
    others = [threading.Thread(target=reader), threading.Thread(target=reader), threading.Thread(target=clearer)]
    run_alongside(pushers, others, done)
    assert not errors, errors[:5]
    assert server.alive(), server.stderr_text()
    assert len(answers) == 24 * 100
    read.extend(({}, r) for r in server.deliveries()["deliveries"])
    assert read, "the readers saw records"
    connection_of: dict[int, int] = {}
    for query, record in read:
        found = answers.get(_record_key(record))
        assert found is not None, f"record {record['seq']} answers no push: {record}"
        index, answer, body = found
        if record["status"] is None and record["unanswered"] is None:
            # Read while its delay held the answer: pending, no status or reason yet (issue 13).
            assert record["fault"] is not None and record["fault"]["action"] == "delay", record
            assert record["reason"] is None, record
        else:
            assert (record["status"], record["reason"], record["timestamp"]) == answer, (record, answer)
        assert record["payload"] == json.loads(body) and record["payloadBytes"] == len(body)
        assert (record["fault"] is not None) >= (answer[0] == 500), record
        assert connection_of.setdefault(index, record["connectionId"]) == record["connectionId"]
        assert all(record["deviceToken" if k == "token" else k] == v for k, v in query.items()), (query, record)
    assert server.stats()["requests"] == 2400


def test_hundreds_of_connections_each_repeating_on_a_small_ring(server_factory):
    """300 connections take turns, each sending its own push three times at once per turn, on
    a 50-record ring while a reader dumps it: every record read is an answer of its connection."""
    server = server_factory("--max-records", "50", "--plaintext", tls=False)
    answers: dict[tuple, tuple[int, bytes]] = {}
    read: list[dict] = []
    errors: list[str] = []
    done = threading.Event()

    def group(first: int):
        clients = [(i, h2_client_for(server.listener, timeout=30)) for i in range(first, first + 50)]
        try:
            for _ in range(3):
                for i, client in clients:
                    body = b'{"aps":{"alert":"c%d"}}' % i
                    for response in client.run_many([(apns_headers(), body)] * 3, concurrency=3):
                        answers[_key(response)] = (i, body)
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            for _, client in clients:
                client.close()

    def reader():
        while not done.is_set():
            read.extend(server.deliveries()["deliveries"])

    groups = [threading.Thread(target=group, args=(k,)) for k in range(0, 300, 50)]
    dumper = threading.Thread(target=reader)
    for t in groups + [dumper]:
        t.start()
    for t in groups:
        t.join()
    done.set()
    dumper.join()
    assert not errors, errors[:3]
    assert len(answers) == 2700
    read.extend(server.deliveries()["deliveries"])
    connection_of: dict[int, int] = {}
    for record in read:
        index, body = answers[_record_key(record)]
        assert record["payload"] == json.loads(body) and record["status"] == 200, record
        assert connection_of.setdefault(index, record["connectionId"]) == record["connectionId"], record
    assert server.stats()["requests"] == 2700


def _mint(key_id: str) -> str:
    proc = subprocess.run([str(binary_path()), "jwt", "--key", str(AUTH / f"AuthKey_{key_id}.p8"), "--key-id", key_id,
                           "--team-id", "TEAM000001"], capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("ring", [1, 2, 3])
def test_strict_auth_repeats_keep_each_pushs_identity_on_a_tiny_ring(server_factory, ring):
    """--auth strict: one connection repeats a token-authenticated push while the clock makes the
    token expired and fresh again, then switches to a key not allowed for the topic: each record
    (read after each batch) has its answer and an identity verdict that agrees with it."""
    server = server_factory("--max-records", str(ring), "--auth", "strict", "--keys", str(KEYS))
    token = uuid.uuid4().hex * 2
    good, unrelated = "bearer " + _mint("TEAMUNI001"), "bearer " + _mint("TOPICC0001")
    client = h2_client_for(server.listener)
    seen: dict[tuple, dict] = {}
    answered: list[tuple] = []

    def batch(authorization: str, n: int = 4) -> set:
        responses = client.run_many([(apns_headers(token, extra=[("authorization", authorization)]), BODY)] * n,
                                    concurrency=2)
        for record in server.deliveries()["deliveries"]:
            seen[_record_key(record)] = record
        answered.extend(responses)
        return {_answer(r)[:2] for r in responses}

    try:
        assert batch(good) == {(200, None)}
        assert server.put("/v1/clock", {"offsetSeconds": 3700}).status == 200
        assert batch(good) == {(403, "ExpiredProviderToken")}
        assert server.put("/v1/clock", {"offsetSeconds": 0}).status == 200
        assert batch(good) == {(200, None)}
        assert batch(unrelated, 2) == {(403, "UnrelatedKeyIdInToken")}
    finally:
        client.close()
        server.put("/v1/clock", {"offsetSeconds": 0})
    by_key = {_key(r): r for r in answered}
    assert len(seen) >= 3 * min(ring, 4) + min(ring, 2), len(seen)
    for key, record in seen.items():
        response = by_key[key]
        _assert_record_is_answer(record, response, BODY, "sandbox")
        assert (record["identity"]["verdict"] == "verified") == (response.status == 200), record["identity"]
        unrelated_key = _answer(response)[1] == "UnrelatedKeyIdInToken"
        assert record["identity"]["keyId"] == ("TOPICC0001" if unrelated_key else "TEAMUNI001"), record["identity"]


def test_registry_changes_between_repeats_on_a_tiny_ring(server_factory):
    """--registry closed and a 2-record ring: the device is removed, registered, unregistered at a
    time, bound to another topic, moved to production and expired between batches of one
    repeated push: every record read is its answer, 410 timestamps included."""
    server = server_factory("--max-records", "2", "--registry", "closed", "--plaintext", tls=False)
    token = uuid.uuid4().hex * 2
    changes = [None, {"environment": "sandbox"}, {"environment": "sandbox", "unregisteredAt": 1764489600000},
               {"environment": "sandbox", "topic": "com.example.other"}, {"environment": "production"},
               {"environment": "sandbox", "expired": True}, {"environment": "sandbox"}]
    expected = [(400, "BadDeviceToken"), (200, None), (410, "Unregistered"), (400, "DeviceTokenNotForTopic"),
                (400, "BadDeviceToken"), (410, "ExpiredToken"), (200, None)]
    client = h2_client_for(server.listener)
    seen: dict[tuple, dict] = {}
    answered = {}
    try:
        for change, want in zip(changes * 2, expected * 2):
            if change is None:
                server.delete(f"/v1/devices/{token}")
            else:
                assert server.put(f"/v1/devices/{token}", change).status in (200, 201)
            responses = client.run_many([(apns_headers(token), BODY)] * 4, concurrency=2)
            assert {_answer(r)[:2] for r in responses} == {want}, change
            answered.update({_key(r): r for r in responses})
            seen.update({_record_key(r): r for r in server.deliveries()["deliveries"]})
    finally:
        client.close()
    assert len(seen) == 28
    for key, record in seen.items():
        _assert_record_is_answer(record, answered[key], BODY, "sandbox")


def test_memory_stays_flat_over_half_a_million_repeats_on_a_wrapping_ring(server_factory, tmp_path):
    """h2load repeats one push 100,000 times on four connections into a 1,000-record ring, then
    400,000 times more: the server's RSS grows by allocator noise at most. Each model's chunk is
    pinned by the repeats made of it; a pin that outlived them (some 400 chunks of 64 KB here), or
    deltas kept past eviction (some 24 MB), would show."""
    server = server_factory("--max-records", "1000", "--plaintext", tls=False)
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"' + b"r" * 200 + b'"}}')
    url = f"http://127.0.0.1:{server.port}/3/device/{'cd' * 32}"

    def h2load(n: int):
        proc = subprocess.run(["h2load", "-t", "1", "-c", "4", "-m", "100", "-n", str(n), "-d", str(payload),
                               "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", url],
                              capture_output=True, text=True, timeout=120)
        assert f"{n} succeeded" in proc.stdout and f"status codes: {n} 2xx" in proc.stdout, proc.stdout[-600:]

    h2load(100_000)
    warm = rss_kib(server.proc.pid)
    h2load(400_000)
    end = rss_kib(server.proc.pid)
    stats = server.stats()
    assert (stats["requests"], stats["records"]) == (500_000, 1000), stats
    assert end - warm <= max(8 * 1024, warm // 10), f"RSS {warm} KiB after 100,000 pushes, {end} KiB after 500,000"
