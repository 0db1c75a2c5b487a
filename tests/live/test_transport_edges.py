"""Unusual and hostile HTTP/2 input against the transport's stream table (512 slots by stream id,
an overflow for collisions), its reused stream objects and its header-block reuse. Frames are
written by hand (HPACK literals without indexing, so no table state is shared): every request must
be recorded with exactly its own method, path, header fields and body, and a protocol error must
end the way nghttp2 ends it."""

from __future__ import annotations

import json
import random
import signal
import time
import uuid

from livelib import (
    FLAG_END_HEADERS,
    FLAG_END_STREAM,
    FRAME_CONTINUATION,
    FRAME_DATA,
    FRAME_GOAWAY,
    FRAME_HEADERS,
    FRAME_RST_STREAM,
    FRAME_SETTINGS,
    TOPIC,
    H2Response,
    h2_client_for,
    hpack_literal,
    raw_frame,
)

PROTOCOL_ERROR, CANCEL = 0x1, 0x8


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def pseudo(token: str, method: str = "POST") -> list[tuple[str, str]]:
    return [(":method", method), (":scheme", "https"), (":authority", "localhost"), (":path", f"/3/device/{token}")]


def body_for(n: int) -> bytes:
    return json.dumps({"aps": {"alert": f"n{n}"}}, separators=(",", ":")).encode()


class RawConn:
    """A TLS connection whose frames after the server's first SETTINGS are written by hand."""

    def __init__(self, server):
        self.client = h2_client_for(server.listener)
        self.client.wait_for_settings()
        self.client.enter_raw_mode()

    def send(self, data: bytes):
        self.client._raw_write(data)

    def headers(self, sid: int, fields, *, end_stream: bool, pieces: int = 1) -> None:
        """HEADERS for `fields`, the block cut into `pieces` frames (HEADERS + CONTINUATIONs)."""
        block = b"".join(hpack_literal(n, v) for n, v in fields)
        size = max(1, -(-len(block) // pieces))
        chunks = [block[i : i + size] for i in range(0, len(block), size)] or [b""]
        out = b""
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            flags = FLAG_END_HEADERS if last else 0
            if i == 0:
                out += raw_frame(FRAME_HEADERS, flags | (FLAG_END_STREAM if end_stream else 0), sid, chunk)
            else:
                out += raw_frame(FRAME_CONTINUATION, flags, sid, chunk)
        self.client.responses.setdefault(sid, H2Response(sid))
        self.send(out)

    def data(self, sid: int, payload: bytes, *, end_stream: bool = True):
        self.send(raw_frame(FRAME_DATA, FLAG_END_STREAM if end_stream else 0, sid, payload))

    def request(self, sid: int, fields, body: bytes | None, *, pieces: int = 1) -> None:
        self.headers(sid, fields, end_stream=not body, pieces=pieces)
        if body:
            self.data(sid, body)

    def wait(self, sids, timeout: float = 20.0) -> dict[int, H2Response]:
        responses = self.client.responses
        self.client.pump(lambda: all(responses[s].done for s in sids), timeout)
        return {s: responses[s] for s in sids}

    def close(self):
        self.client.close()


def records_by_alert(server, token) -> dict[str, dict]:
    found = server.deliveries(token=token, limit=5000)["deliveries"]
    out = {}
    for record in found:
        alert = (record.get("payload") or {}).get("aps", {}).get("alert")
        assert alert not in out, f"two records for {alert}"
        out[alert] = record
    return out


def fields_of(record) -> list[tuple[str, str]]:
    return [(h["name"], h["value"]) for h in record["headers"]]


def check_records(server, token, sent: dict[int, list], count: int):
    """sent: n -> regular fields; each record (found by its body) holds exactly its own."""
    records = records_by_alert(server, token)
    assert len(records) == count, (len(records), count)
    for n, fields in sent.items():
        record = records[f"n{n}"]
        assert record["method"] == "POST" and record["path"] == f"/3/device/{token}", record
        assert fields_of(record) == fields, (n, fields_of(record), fields)
        assert record["payloadBytes"] == len(body_for(n))


def assert_next_connection_served(server, token, fields, n: int, pieces: int = 1):
    """After a connection that ended without recording anything: nothing is recorded for
    `token`, and a new connection's request (`fields` with `body_for(n)`) is answered 200 and
    recorded with exactly those fields."""
    assert server.deliveries(token=token)["deliveries"] == []
    conn = RawConn(server)
    try:
        conn.request(1, fields, body_for(n), pieces=pieces)
        assert conn.wait([1])[1].status == 200
    finally:
        conn.close()
    check_records(server, token, {n: fields[4:]}, 1)


def test_more_open_streams_than_slots_interleaved_then_finished_in_random_order(server):
    """700 streams opened (HEADERS only) before any DATA, as h2load does, so that ids 1025 and
    up collide with open streams in the 512-slot table; their bodies then arrive shuffled. Blocks
    repeat in runs and change, so block reuse runs across the collisions too."""
    token = tok()
    count = 700
    base = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    sent = {}
    conn = RawConn(server)
    try:
        for n in range(count):
            extra = [("x-run", str(n // 5))] if (n // 5) % 3 else []
            sent[n] = base + extra
            conn.headers(2 * n + 1, pseudo(token) + sent[n], end_stream=False)
        order = list(range(count))
        random.Random(5).shuffle(order)
        for n in order:
            conn.data(2 * n + 1, body_for(n))
        responses = conn.wait([2 * n + 1 for n in range(count)])
        assert {r.status for r in responses.values()} == {200}, {r.status for r in responses.values()}
        # The table still serves the connection once everything closed: slots and overflow empty.
        conn.request(2 * count + 1, pseudo(token) + base, body_for(count))
        assert conn.wait([2 * count + 1])[2 * count + 1].status == 200
        sent[count] = base
    finally:
        conn.close()
    check_records(server, token, sent, count + 1)


def test_streams_whose_ids_share_a_slot_open_and_close_across_each_other(server):
    """Ids 1, 1025, 2049, ... all index slot 0: streams move between the slot and the overflow
    as others close; each must keep its own fields and body."""
    token = tok()
    fields = {n: [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-sid", str(n))] for n in range(8)}
    sid = {n: 1 + 1024 * n for n in range(8)}
    conn = RawConn(server)
    try:
        def open_(n):
            conn.headers(sid[n], pseudo(token) + fields[n], end_stream=False)

        def finish(n):
            conn.data(sid[n], body_for(n))
            assert conn.wait([sid[n]])[sid[n]].status == 200

        open_(0); open_(1); open_(2)          # 1 in the slot, 1025 and 2049 in the overflow
        finish(0)                             # slot free
        open_(3)                              # 3073 takes the slot
        finish(2)
        open_(4)                              # 4097 in the overflow
        finish(3); open_(5); finish(1)        # 5121 in the slot
        open_(6); finish(5); finish(4); open_(7); finish(7); finish(6)
    finally:
        conn.close()
    check_records(server, token, fields, 8)


def test_rst_stream_between_headers_and_continuation_is_a_connection_error(server):
    """RFC 9113 section 6.10: anything but CONTINUATION of that stream inside a header block is
    a connection error PROTOCOL_ERROR; nothing is recorded, and the next connection, sending the
    same block, is recorded with it."""
    token = tok()
    fields = pseudo(token) + [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-cut", "yes")]
    block = b"".join(hpack_literal(n, v) for n, v in fields)
    conn = RawConn(server)
    try:
        conn.send(raw_frame(FRAME_HEADERS, 0, 1, block[:20]))
        conn.send(raw_frame(FRAME_RST_STREAM, 0, 1, CANCEL.to_bytes(4, "big")))
        assert conn.client.wait_closed(10)
        goaway = conn.client.goaway
        assert goaway is not None and goaway.error_code == PROTOCOL_ERROR, goaway
    finally:
        conn.close()
    assert_next_connection_served(server, token, fields, 1, pieces=3)


def test_requests_reset_mid_body_leave_no_record_and_do_not_disturb_the_next(server):
    """A stream reset by the client after its header block (which became the one the next is
    compared with) and part of its body: no record; the next streams, repeating or changing that
    block, are recorded with their own fields and bodies."""
    token = tok()
    base = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-a", "1")]
    changed = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-a", "2")]
    conn = RawConn(server)
    try:
        conn.headers(1, pseudo(token) + changed, end_stream=False)
        conn.data(1, b'{"aps":{"alert":"cut', end_stream=False)
        conn.send(raw_frame(FRAME_RST_STREAM, 0, 1, CANCEL.to_bytes(4, "big")))
        conn.request(3, pseudo(token) + changed, body_for(3))
        conn.headers(5, pseudo(token) + base, end_stream=False)
        conn.data(5, b"x" * 3000, end_stream=False)
        conn.send(raw_frame(FRAME_RST_STREAM, 0, 5, CANCEL.to_bytes(4, "big")))
        conn.request(7, pseudo(token) + base, body_for(7))
        conn.request(9, pseudo(token) + changed, body_for(9))
        responses = conn.wait([3, 7, 9])
        assert [responses[s].status for s in (3, 7, 9)] == [200, 200, 200]
    finally:
        conn.close()
    check_records(server, token, {3: changed, 7: base, 9: changed}, 3)


def test_header_blocks_split_over_continuation_frames(server):
    """Blocks cut mid-field into HEADERS and eight CONTINUATIONs (nghttp2 allows at most eight
    after a HEADERS frame), repeating and changing one value, the empty one included."""
    token = tok()
    a = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-e", "")]
    b = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-e", "v")]
    blocks = {1: a, 2: a, 3: b, 4: a, 5: b, 6: b}
    conn = RawConn(server)
    try:
        for n, fields in blocks.items():
            conn.request(2 * n - 1, pseudo(token) + fields, body_for(n), pieces=9)
            assert conn.wait([2 * n - 1])[2 * n - 1].status == 200
    finally:
        conn.close()
    check_records(server, token, blocks, len(blocks))


def test_more_continuation_frames_than_nghttp2_takes_end_the_connection(server):
    """Nine CONTINUATIONs after a HEADERS frame exceed nghttp2's limit (CVE-2024-27316): the
    connection ends, nothing is recorded, and the next connection is served."""
    token = tok()
    fields = pseudo(token) + [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    conn = RawConn(server)
    try:
        conn.request(1, fields, body_for(1), pieces=200)
        assert conn.client.wait_closed(10)
        assert not conn.client.responses[1].done
    finally:
        conn.close()
    assert_next_connection_served(server, token, fields, 2, pieces=9)


def test_trailers_are_kept_with_their_request_and_not_carried_to_the_next(server):
    """Trailers (HEADERS with END_STREAM after DATA) are appended to their request's fields; ones
    that repeat the request's fields, others that change what the connection remembers at their
    positions: the requests after them, repeating the first block, keep only their own fields."""
    token = tok()
    base = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    trailer_sets = [
        [("x-t", "1")],
        base,                                  # the request's own fields again, as trailers
        [("apns-topic", TOPIC + ".x"), ("apns-push-type", "voip")],
        [("x-t", "")],
    ]
    expected = {}
    conn = RawConn(server)
    try:
        n = 0
        for trailers in trailer_sets:
            for with_trailers in (True, False, False):
                n += 1
                sid = 2 * n - 1
                conn.headers(sid, pseudo(token) + base, end_stream=False)
                if with_trailers:
                    conn.data(sid, body_for(n), end_stream=False)
                    conn.headers(sid, trailers, end_stream=True)
                    expected[n] = base + trailers
                else:
                    conn.data(sid, body_for(n))
                    expected[n] = base
                conn.wait([sid])
    finally:
        conn.close()
    records = records_by_alert(server, token)
    assert len(records) == len(expected)
    for n, fields in expected.items():
        assert fields_of(records[f"n{n}"]) == fields, (n, fields_of(records[f"n{n}"]))


def test_blocks_shifted_by_a_missing_pseudo_header_or_reordered(server):
    """The same regular fields after three pseudo-header fields instead of four (no :authority,
    a host field last instead), or with the pseudo-header fields reordered, sit at other
    positions: recorded as sent."""
    token = tok()
    regular = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-a", "1")]
    other = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-a", "2")]
    no_authority = [p for p in pseudo(token) if p[0] != ":authority"]
    reordered = [pseudo(token)[i] for i in (3, 2, 1, 0)]
    plans = [
        (pseudo(token), regular), (no_authority, regular), (no_authority, regular), (pseudo(token), regular),
        (reordered, regular), (pseudo(token), other), (no_authority, other), (reordered, regular),
        (pseudo(token)[:3] + [("x-a", "1")] + pseudo(token)[3:], regular[:2]),  # pseudo after regular: refused
        (pseudo(token), regular),
        # A block whose regular fields start one position before the previous block's, each equal
        # to the field remembered at its position (the first left there by the block before, as
        # the previous block had :scheme, of which no String is made, at that position): they
        # are not the previous block's fields, which are one position further on.
        (no_authority, [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("host", "localhost")]),
        ([pseudo(token)[i] for i in (0, 2, 3, 1)], [("x-a", "1"), ("apns-push-type", "alert")]),
        (no_authority, [("apns-topic", TOPIC), ("x-a", "1"), ("apns-push-type", "alert")]),
    ]
    host = [("host", "localhost")]
    expected = {}
    conn = RawConn(server)
    try:
        for n, (pseudos, fields) in enumerate(plans, start=1):
            if pseudos == no_authority and ("host", "localhost") not in fields:
                fields = fields + host
            conn.request(2 * n - 1, pseudos + fields, body_for(n))
            response = conn.wait([2 * n - 1])[2 * n - 1]
            if n == 9:
                assert response.reset == PROTOCOL_ERROR, response
            else:
                assert response.status == (200 if fields[0] == ("apns-topic", TOPIC) else 400), (n, response)
                expected[n] = fields
    finally:
        conn.close()
    check_records(server, token, expected, len(expected))


def test_pseudo_header_only_requests_between_full_ones(server):
    token = tok()
    full = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    plan = [full, [], full, [], [], full, full]
    conn = RawConn(server)
    statuses = []
    try:
        for n, fields in enumerate(plan, start=1):
            conn.request(2 * n - 1, pseudo(token) + fields, body_for(n))
            statuses.append(conn.wait([2 * n - 1])[2 * n - 1].status)
    finally:
        conn.close()
    assert statuses == [200 if f else 400 for f in plan]
    check_records(server, token, dict(enumerate(plan, start=1)), len(plan))


def test_client_goaway_with_a_request_half_sent_is_still_answered(server):
    """RFC 9113 section 6.8: a GOAWAY from the client does not cancel its open streams; the
    stream finishes and is answered, then the connection ends."""
    token = tok()
    fields = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    conn = RawConn(server)
    try:
        conn.headers(1, pseudo(token) + fields, end_stream=False)
        conn.send(raw_frame(FRAME_GOAWAY, 0, 0, (0).to_bytes(4, "big") + (0).to_bytes(4, "big")))
        time.sleep(0.2)
        conn.data(1, body_for(1))
        assert conn.wait([1])[1].status == 200
        assert conn.client.wait_closed(10)
    finally:
        conn.close()
    check_records(server, token, {1: fields}, 1)


def test_connection_closed_mid_request_then_the_same_block_on_a_new_one(server):
    token = tok()
    fields = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-a", "1")]
    for cut in ("in-block", "in-body"):
        conn = RawConn(server)
        block = b"".join(hpack_literal(n, v) for n, v in pseudo(token) + fields)
        if cut == "in-block":
            conn.send(raw_frame(FRAME_HEADERS, 0, 1, block[:30]))
        else:
            conn.send(raw_frame(FRAME_HEADERS, FLAG_END_HEADERS, 1, block))
            conn.data(1, b'{"aps":', end_stream=False)
        conn.client.sock.close()
    conn = RawConn(server)
    try:
        conn.request(1, pseudo(token) + fields, body_for(1))
        conn.request(3, pseudo(token) + fields, body_for(3))
        assert {r.status for r in conn.wait([1, 3]).values()} == {200}
    finally:
        conn.close()
    check_records(server, token, {1: fields, 3: fields}, 2)


def expected_status(fields) -> int:
    """APNs answers a header name sent twice with 400 DuplicateHeaders."""
    names = [name for name, _ in fields]
    return 400 if len(set(names)) < len(names) else 200


def test_blocks_longer_than_the_remembered_positions_and_with_repeated_names(server):
    """Fields past the 32 positions the connection remembers, a change among them only, and a
    name repeated within a block: recorded as sent."""
    token = tok()
    long = [("apns-topic", TOPIC), ("apns-push-type", "alert")] + [(f"x-{i}", str(i)) for i in range(38)]
    changed_late = long[:37] + [("x-35", "changed")] + long[38:]
    changed_early = long[:3] + [("x-1", "changed")] + long[4:]
    doubled = [("apns-topic", TOPIC), ("apns-push-type", "alert"), ("x-d", "1"), ("x-d", "1"), ("x-d", "2")]
    blocks = {1: long, 2: long, 3: changed_late, 4: long, 5: changed_early, 6: changed_early, 7: doubled,
              8: doubled, 9: doubled[:4], 10: long}
    conn = RawConn(server)
    try:
        for n, fields in blocks.items():
            conn.request(2 * n - 1, pseudo(token) + fields, body_for(n))
            assert conn.wait([2 * n - 1])[2 * n - 1].status == expected_status(fields)
    finally:
        conn.close()
    check_records(server, token, blocks, len(blocks))


def test_random_mix_of_blocks_trailers_resets_and_oversized_lists(server):
    """Many short runs on one connection: HEADERS of several streams before their DATA, blocks
    drawn from a few fields so that they often repeat (or nearly), some split over CONTINUATIONs,
    some with trailers, some reset mid-body, some over MAX_HEADER_LIST_SIZE (431), some with a
    field nghttp2 refuses (upper-case name: RST_STREAM PROTOCOL_ERROR). Every request
    that finished is recorded with exactly its own fields and body; no other is."""
    rng = random.Random(20261130)
    tokens = [tok(), tok()]
    orders = [(0, 1, 2, 3), (0, 1, 2, 3), (3, 2, 1, 0), (1, 0, 3, 2)]
    values = ["", "1", "22", "abc"]
    names = ["x-a", "x-b", "x-c"]

    def some_fields():
        fields = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            fields.append((rng.choice(names), rng.choice(values)))
        if rng.random() < 0.05:
            fields += [(f"x-long-{i}", "v") for i in range(35)]
        return fields

    recent: list[list] = [some_fields() for _ in range(3)]
    expected: dict[int, tuple] = {}  # stream id -> (path, fields, body)
    status: dict[int, int] = {}
    reset = []
    sid = -1
    conn = RawConn(server)
    try:
        for _ in range(300):
            batch = []
            for _ in range(rng.choice([1, 1, 2, 3, 5])):
                sid += 2
                roll = rng.random()
                fields = rng.choice(recent) if roll < 0.6 else some_fields()
                if roll > 0.9:
                    fields = list(fields)
                    at = rng.randrange(2, len(fields) + 1)  # topic and push type stay
                    fields[at:at + 1] = [(rng.choice(names), rng.choice(values))]
                recent = (recent + [fields])[-3:]
                kind = rng.choices(["plain", "trailers", "reset", "oversized", "huge", "invalid"],
                                   [62, 12, 10, 8, 4, 4])[0]
                sent = list(fields)
                if kind in ("oversized", "invalid"):
                    at = rng.randrange(len(sent) + 1)
                    sent[at:at] = [("x-filler", "f" * 9000) if kind == "oversized" else ("X-Upper", "1")]
                token = rng.choice(tokens)
                pseudos = [pseudo(token)[i] for i in rng.choice(orders)]
                conn.headers(sid, pseudos + sent, end_stream=False, pieces=rng.choice([1, 1, 2, 5]))
                batch.append((sid, token, fields, kind))
            rng.shuffle(batch)
            for sid_, token, fields, kind in batch:
                body = body_for(sid_) if kind != "huge" else bytes([48 + sid_ % 10]) * 20_000
                if kind == "invalid":  # nghttp2 resets the stream at the field (PROTOCOL_ERROR)
                    conn.data(sid_, body)
                    status[sid_] = -PROTOCOL_ERROR
                    continue
                if kind == "reset":
                    conn.data(sid_, body[:7], end_stream=False)
                    conn.send(raw_frame(FRAME_RST_STREAM, 0, sid_, CANCEL.to_bytes(4, "big")))
                    reset.append(sid_)
                    continue
                if kind == "huge":
                    conn.data(sid_, body[:16_000], end_stream=False)
                    conn.data(sid_, body[16_000:])
                elif kind == "trailers":
                    trailers = [(rng.choice(names), rng.choice(values)) for _ in range(rng.choice([1, 2]))]
                    conn.data(sid_, body, end_stream=False)
                    conn.headers(sid_, trailers, end_stream=True)
                    fields = fields + trailers
                else:
                    conn.data(sid_, body)
                if kind == "oversized":
                    status[sid_] = 431
                else:
                    expected[sid_] = (f"/3/device/{token}", fields, body)
                    status[sid_] = expected_status(fields)
                    if kind == "huge" and status[sid_] == 200:
                        status[sid_] = 413  # PayloadTooLarge, checked after the headers
            waits = [b[0] for b in batch if b[3] != "reset"]
            responses = conn.wait(waits)
            for sid_ in waits:
                got = -responses[sid_].reset if responses[sid_].reset is not None else responses[sid_].status
                assert got == status[sid_], (sid_, responses[sid_])
    finally:
        conn.close()
    assert {431, 413, -PROTOCOL_ERROR} <= set(status.values()) and reset
    assert any(len(f) > 30 for _, f, _ in expected.values())
    records = {r["streamId"]: r for t in tokens for r in server.deliveries(token=t, limit=5000)["deliveries"]}
    assert set(records) == set(expected), (len(records), len(expected))
    for sid_, (path, fields, body) in expected.items():
        record = records[sid_]
        assert (record["method"], record["path"], fields_of(record)) == ("POST", path, fields), (sid_, record)
        assert record["payloadBytes"] == len(body) and record["status"] == status[sid_], (sid_, record)
        if status[sid_] == 200:
            assert json.dumps(record["payload"], separators=(",", ":")).encode() == body, (sid_, record)


def test_error_bodies_held_back_by_flow_control_come_from_their_own_streams(server):
    """With the client's stream window at 0, 600 answers with a body (400, BadDeviceToken or
    InvalidPushType by stream) wait in open streams, ids 1025 and up in the overflow; once the
    window opens, each body is read from its own stream."""
    initial_window = 0x4
    conn = RawConn(server)
    try:
        conn.send(raw_frame(FRAME_SETTINGS, 0, 0, initial_window.to_bytes(2, "big") + (0).to_bytes(4, "big")))
        expected = {}
        for n in range(600):
            sid = 2 * n + 1
            if n % 2:
                token, push_type, reason = f"zz{n}", "alert", "BadDeviceToken"  # not hex
            else:
                token, push_type, reason = tok(), f"kind{n}", "InvalidPushType"
            conn.request(sid, pseudo(token) + [("apns-topic", TOPIC), ("apns-push-type", push_type)], body_for(n))
            expected[sid] = reason
        conn.client.pump(lambda: all(conn.client.responses[s].headers for s in expected), 20)
        done = [(s, conn.client.responses[s]) for s in expected if conn.client.responses[s].done]
        assert not done, done[:3]
        conn.send(raw_frame(FRAME_SETTINGS, 0, 0, initial_window.to_bytes(2, "big") + (65535).to_bytes(4, "big")))
        responses = conn.wait(list(expected))
        for sid, reason in expected.items():
            assert (responses[sid].status, responses[sid].json()) == (400, {"reason": reason}), (sid, responses[sid])
    finally:
        conn.close()


def test_stop_waits_for_streams_in_the_overflow_and_closes_once_they_are_answered(server_factory):
    """On SIGTERM the connection drains: the streams sharing slot 0 (1, 1025, 2049; two in the
    overflow) are still served, and the connection closes when the last is answered, not at the
    30-second drain timeout (the table's count of open streams covers the overflow)."""
    server = server_factory("--drain-timeout", "30")
    token = tok()
    fields = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    sids = [1, 1025, 2049]
    conn = RawConn(server)
    try:
        for sid in sids:
            conn.headers(sid, pseudo(token) + fields, end_stream=False)
        conn.client.ping()  # the HEADERS were read
        server.signal(signal.SIGTERM)
        conn.client.pump(lambda: conn.client.goaway is not None, 10)
        for sid in (2049, 1, 1025):
            conn.data(sid, body_for(sid))
        assert {r.status for r in conn.wait(sids).values()} == {200}
        answered = time.monotonic()
        assert conn.client.wait_closed(15)
        assert conn.client.closed_at - answered < 10
    finally:
        conn.close()
    assert server.proc.wait(20) == 0


def test_trailers_are_held_to_max_header_list_size_on_their_own(server):
    """MAX_HEADER_LIST_SIZE (8000) bounds each field section (RFC 9113 section 6.5.2): a header
    section and trailers each under it are served and recorded, though together over it; trailers
    over it alone are answered 431."""
    token = tok()
    base = [("apns-topic", TOPIC), ("apns-push-type", "alert")]
    big = [("x-big", "a" * 4500)]
    conn = RawConn(server)
    try:
        for sid, trailers in ((1, [("x-trail", "b" * 4000)]), (3, [("x-trail", "b" * 8000)])):
            conn.headers(sid, pseudo(token) + base + big, end_stream=False)
            conn.data(sid, body_for(sid), end_stream=False)
            conn.headers(sid, trailers, end_stream=True)
        responses = conn.wait([1, 3])
        assert (responses[1].status, responses[3].status) == (200, 431)
    finally:
        conn.close()
    check_records(server, token, {1: base + big + [("x-trail", "b" * 4000)]}, 1)
