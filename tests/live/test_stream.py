"""Live streams (README "Live stream"): GET /v1/deliveries/stream and /v1/events/stream as
Server-Sent Events or NDJSON, read here from a raw socket (chunked transfer decoded by hand)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request

from livelib import TOKEN, TOPIC

OTHER = "cd" * 32


class StreamReader:
    """One live stream over a plain socket: the status and headers, then messages as they come."""

    def __init__(self, control_url: str, path: str, headers=(), rcvbuf: int | None = None, read: bool = True):
        url = urllib.parse.urlsplit(control_url)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect((url.hostname, url.port))
        lines = [f"GET {path} HTTP/1.1", f"Host: {url.hostname}:{url.port}"]
        lines += [f"{name}: {value}" for name, value in headers]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""  # bytes received, not yet de-chunked
        self.body = b""  # de-chunked bytes not yet parsed into messages
        self.ended = False  # the last chunk (or EOF) was seen
        self.status = None
        self.headers: dict[str, str] = {}
        self.chunked = False
        if read:
            self.read_head()

    def _recv(self, timeout: float) -> bool:
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 16)
        except socket.timeout:
            return False
        if not data:
            self.ended = True
            return False
        self.raw += data
        return True

    def read_head(self, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.raw:
            assert time.monotonic() < deadline and not self.ended, self.raw
            self._recv(deadline - time.monotonic())
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        for line in lines[1:]:
            name, value = line.split(":", 1)
            self.headers[name.strip().lower()] = value.strip()
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self._dechunk()

    def _dechunk(self):
        if not self.chunked:
            self.body += self.raw
            self.raw = b""
            return
        while True:
            mark = self.raw.find(b"\r\n")
            if mark < 0:
                return
            size = int(self.raw[:mark].split(b";")[0], 16)
            if len(self.raw) < mark + 2 + size + 2:
                return
            self.body += self.raw[mark + 2 : mark + 2 + size]
            self.raw = self.raw[mark + 2 + size + 2 :]
            if size == 0:
                self.ended = True
                return

    def _message(self, separator: bytes):
        mark = self.body.find(separator)
        if mark < 0:
            return None
        message, self.body = self.body[:mark], self.body[mark + len(separator) :]
        return message.decode()

    def next_message(self, separator: bytes, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while True:
            message = self._message(separator)
            if message is not None:
                return message
            if self.ended or time.monotonic() >= deadline:
                return None
            if self._recv(deadline - time.monotonic()):
                self._dechunk()

    def next_event(self, timeout: float = 10.0, heartbeats: bool = False):
        """The next SSE message as {"event", "id", "data", "comment"}; None at the end or timeout."""
        while True:
            text = self.next_message(b"\n\n", timeout)
            if text is None:
                return None
            event = {"event": None, "id": None, "data": None, "comment": None}
            for line in text.split("\n"):
                if line.startswith(":"):
                    event["comment"] = line[1:].strip()
                else:
                    name, _, value = line.partition(": ")
                    event[name] = value
            if event["comment"] is not None and event["data"] is None and not heartbeats:
                continue
            return event

    def next_line(self, timeout: float = 10.0, heartbeats: bool = False):
        while True:
            text = self.next_message(b"\n", timeout)
            if text is None:
                return None
            value = json.loads(text)
            if "heartbeat" in value and not heartbeats:
                continue
            return value

    def close(self):
        self.sock.close()


def push_many(server, n: int, token: str = TOKEN):
    for _ in range(n):
        assert server.push(token).status == 200


def test_sse_sends_stored_records_then_new_ones_as_deliveries_renders_them(server_factory):
    server = server_factory()
    push_many(server, 2)
    stream = StreamReader(server.control_url, "/v1/deliveries/stream")
    assert stream.status == 200, stream.body
    assert stream.headers["content-type"] == "text/event-stream"
    assert stream.headers["cache-control"] == "no-store"
    events = [stream.next_event() for _ in range(2)]
    push_many(server, 1)
    events.append(stream.next_event())
    assert [e["event"] for e in events] == ["delivery"] * 3
    assert [e["id"] for e in events] == ["1", "2", "3"]
    listed = server.deliveries()["deliveries"]
    assert [json.loads(e["data"]) for e in events] == listed
    stream.close()


def test_heartbeat_comment_opens_the_stream_and_idle_timeout_does_not_cut_it(server_factory):
    server = server_factory("--control-idle-timeout", "1")
    stream = StreamReader(server.control_url, "/v1/deliveries/stream")
    first = stream.next_event(heartbeats=True)
    assert first["comment"] == "heartbeat", first
    time.sleep(3)  # three idle timeouts with nothing to send
    push_many(server, 1)
    event = stream.next_event()
    assert event is not None and event["id"] == "1", (event, stream.ended)
    stream.close()


def test_ndjson_by_accept_or_format_with_filters(server_factory):
    server = server_factory()
    push_many(server, 2, TOKEN)
    push_many(server, 1, OTHER)
    by_accept = StreamReader(
        server.control_url, f"/v1/deliveries/stream?token={OTHER}", headers=[("Accept", "application/x-ndjson")])
    by_format = StreamReader(server.control_url, f"/v1/deliveries/stream?token={TOKEN}&format=ndjson")
    assert by_accept.headers["content-type"] == "application/x-ndjson"
    assert by_format.headers["content-type"] == "application/x-ndjson"
    assert by_accept.next_line()["seq"] == 3
    assert [by_format.next_line()["seq"] for _ in range(2)] == [1, 2]
    push_many(server, 1, OTHER)
    push_many(server, 1, TOKEN)
    assert by_accept.next_line()["seq"] == 4
    line = by_format.next_line()
    assert line["seq"] == 5 and line["deviceToken"] == TOKEN
    assert by_format.next_line(timeout=0.3) is None
    for stream in (by_accept, by_format):
        stream.close()
    bad = server.get("/v1/deliveries/stream?format=xml")
    assert bad.status == 400 and "format" in bad.json["error"]
    unknown = server.get("/v1/deliveries/stream?count=1")
    assert unknown.status == 400 and "count" in unknown.json["error"]


def test_events_stream_sends_connection_events(server_factory):
    server = server_factory()
    stream = StreamReader(server.control_url, "/v1/events/stream?kind=opened&format=ndjson")
    push_many(server, 1)
    event = stream.next_line()
    assert event["kind"] == "opened", event
    listed = server.get_json("/v1/events?kind=opened")["events"]
    assert event == listed[0]
    sse = StreamReader(server.control_url, "/v1/events/stream?kind=closed")
    message = sse.next_event()
    assert message["event"] == "event" and json.loads(message["data"])["kind"] == "closed"
    stream.close()
    sse.close()


def test_after_and_last_event_id_resume_and_an_evicted_range_is_a_gap(server_factory):
    server = server_factory("--max-records", "5")
    push_many(server, 10)  # 1...5 evicted
    stream = StreamReader(server.control_url, "/v1/deliveries/stream?after=2")
    gap = stream.next_event()
    assert gap["event"] == "gap" and gap["id"] == "5", gap
    assert json.loads(gap["data"]) == {
        "gap": True, "from": 3, "to": 5, "reason": "evicted or cleared before it was sent"}
    assert [stream.next_event()["id"] for _ in range(5)] == ["6", "7", "8", "9", "10"]
    stream.close()
    # Last-Event-ID wins over after (an EventSource reconnect repeats the first URL).
    again = StreamReader(server.control_url, "/v1/deliveries/stream?after=2", headers=[("Last-Event-ID", "8")])
    assert [again.next_event()["id"] for _ in range(2)] == ["9", "10"]
    again.close()
    fresh = StreamReader(server.control_url, "/v1/deliveries/stream")  # no position: no gap
    assert fresh.next_event()["id"] == "6"
    fresh.close()
    raw = StreamReader(server.control_url, "/v1/deliveries/stream", headers=[("Last-Event-ID", "x")])
    assert raw.status == 400 and b"Last-Event-ID" in raw.body, raw.body
    raw.close()


def h2load(server, n: int, payload_path, clients: int = 4):
    cmd = [
        "h2load", "-n", str(n), "-c", str(clients), "-m", "50", "-t", "1", "-d", str(payload_path),
        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
        f"https://127.0.0.1:{server.port}/3/device/{TOKEN}",
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def h2load_result(proc, n: int):
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    assert f"{n} succeeded, 0 failed" in out, out
    m = re.search(r"finished in ([\d.]+)(ms|s)", out)
    return float(m[1]) / (1000 if m[2] == "ms" else 1)


def test_resume_across_reconnects_under_h2load_gets_every_record_once(server_factory, tmp_path):
    """The 'Done when' row: a consumer that reconnects (after=, then Last-Event-ID) mid-load gets
    every record exactly once."""
    n = 20000
    server = server_factory("--max-records", str(n))
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"stream"}}')
    load = h2load(server, n, payload)
    seen: list[int] = []
    last = None
    reconnects = 0
    deadline = time.monotonic() + 90
    while (not seen or seen[-1] < n) and time.monotonic() < deadline:
        if last is None:
            stream = StreamReader(server.control_url, "/v1/deliveries/stream")
        elif reconnects % 2:
            stream = StreamReader(server.control_url, f"/v1/deliveries/stream?after={last}")
        else:
            stream = StreamReader(server.control_url, "/v1/deliveries/stream", headers=[("Last-Event-ID", str(last))])
        reconnects += 1
        for _ in range(3000):  # then drop the connection mid-stream
            event = stream.next_event(timeout=10)
            if event is None:
                break
            assert event["event"] == "delivery", event
            seen.append(int(event["id"]))
            last = seen[-1]
            if last == n:
                break
        stream.close()
    h2load_result(load, n)
    assert reconnects >= 3
    assert seen == list(range(1, n + 1)), (len(seen), len(set(seen)), seen[:3], seen[-3:])


def test_stalled_consumer_is_cut_off_and_pushes_keep_their_speed(server_factory, tmp_path):
    n = 30000
    server = server_factory("--max-records", str(2 * n + 10))
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"' + b"x" * 400 + b'"}}')
    baseline = h2load_result(h2load(server, n, payload), n)
    # A consumer that reads nothing (a small receive buffer, so the server's output fills fast).
    stalled = StreamReader(server.control_url, "/v1/deliveries/stream?format=ndjson", rcvbuf=4096, read=False)
    time.sleep(0.2)
    loaded = h2load_result(h2load(server, n, payload), n)
    stats = server.stats()
    assert stats["requests"] == 2 * n and stats["byStatus"] == {"200": 2 * n}, stats
    # Pushes kept their speed (generous: a shared 2-core machine).
    assert loaded < baseline * 2.5 + 0.5, (baseline, loaded)
    time.sleep(3)  # the output stays at the bound for 2 s with records waiting: cut off
    # Reading at last: records from 1, in order, then the cutoff naming the last seq sent, then the end.
    stalled.read_head()
    assert stalled.status == 200
    seqs = []
    cutoff = None
    while True:
        line = stalled.next_line(timeout=10)
        if line is None:
            break
        if "cutoff" in line:
            cutoff = line
            break
        seqs.append(line["seq"])
    assert cutoff is not None, (len(seqs), seqs[-1:] if seqs else None)
    assert cutoff["reason"] == "slow consumer" and cutoff["lastSeq"] >= seqs[-1], (cutoff, seqs[-1])
    assert seqs == list(range(1, len(seqs) + 1))
    assert cutoff["lastSeq"] < 2 * n  # cut off before the end: the buffer was bounded
    assert stalled.next_line(timeout=5) is None and stalled.ended
    stalled.close()
    # A reconnect after the cutoff's lastSeq resumes with no gap, and a consumer that reads gets a
    # backlog of many times the bound without being cut off.
    resumed = StreamReader(server.control_url, f"/v1/deliveries/stream?after={cutoff['lastSeq']}&format=ndjson")
    rest = []
    while not rest or rest[-1] < 2 * n:
        line = resumed.next_line(timeout=10)
        assert line is not None and "seq" in line, (line, rest[-1:] if rest else None)
        rest.append(line["seq"])
    assert rest == list(range(cutoff["lastSeq"] + 1, 2 * n + 1))
    resumed.close()
    print(f"h2load {n} pushes: {baseline:.2f} s alone, {loaded:.2f} s with a stalled stream; "
          f"cut off at seq {cutoff['lastSeq']}, {len(rest)} records of backlog read after")


def test_streams_beyond_the_cap_get_503_and_stop_ends_streams(server_factory):
    server = server_factory()
    streams = [StreamReader(server.control_url, "/v1/events/stream") for _ in range(64)]
    assert all(s.status == 200 for s in streams)
    refused = StreamReader(server.control_url, "/v1/deliveries/stream")
    assert refused.status == 503, refused.body
    assert "too many live streams" in json.loads(refused.body)["error"]
    refused.close()
    streams.pop().close()
    time.sleep(0.3)  # the server notices the close at its next check
    extra = StreamReader(server.control_url, "/v1/deliveries/stream?format=ndjson")
    assert extra.status == 200
    streams.append(extra)
    rc, _ = server.stop()
    assert rc == 0
    end = extra.next_line()
    assert end == {"end": True, "lastSeq": 0, "reason": "server stopping"}, end
    sse_end = streams[0].next_event()
    assert sse_end["event"] == "end" and json.loads(sse_end["data"])["end"] is True
    for stream in streams:
        stream.close()


def test_python_client_stream_deliveries_resumes_and_raises_on_a_gap(server_factory):
    import sys

    from livelib import REPO_ROOT

    src = str(REPO_ROOT / "clients" / "python" / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    from mockapns import MockAPNs, MockAPNsError

    server = server_factory("--max-records", "4")
    client = MockAPNs(server.control_url)
    push_many(server, 2, TOKEN)
    push_many(server, 1, OTHER)
    stream = client.stream_deliveries(token=TOKEN)
    assert [next(stream)["seq"] for _ in range(2)] == [1, 2]
    push_many(server, 1, TOKEN)
    assert next(stream)["seq"] == 4
    stream.close()
    resumed = client.stream_deliveries(after=2)
    assert [next(resumed)["seq"] for _ in range(2)] == [3, 4]
    resumed.close()
    push_many(server, 4)  # 1...4 evicted
    try:
        next(client.stream_deliveries(after=1))
        raise AssertionError("a gap should raise")
    except MockAPNsError as error:
        assert "records 2 to 4" in str(error), error
        assert str(error).startswith("GET /v1/deliveries/stream: records 2 to 4 were no longer stored"), error
    gaps = []
    with_gaps = client.stream_deliveries(after=1, on_gap=gaps.append)
    assert next(with_gaps)["seq"] == 5 and gaps[0]["from"] == 2 and gaps[0]["to"] == 4
    with_gaps.close()
    events = client.stream_events(kind="opened")
    assert next(events)["kind"] == "opened"
    events.close()


def test_stream_bounds_are_settings(server_factory, tmp_path):
    n = 20000
    server = server_factory("--control-max-streams", "1", "--control-stream-buffer", "65536")
    stalled = StreamReader(server.control_url, "/v1/deliveries/stream?format=ndjson", rcvbuf=4096, read=False)
    time.sleep(0.3)
    refused = StreamReader(server.control_url, "/v1/events/stream")
    assert refused.status == 503 and "at most 1" in json.loads(refused.body)["error"], refused.body
    refused.close()
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"' + b"x" * 400 + b'"}}')
    h2load_result(h2load(server, n, payload), n)  # far more than the bound and the socket buffers hold
    time.sleep(3)
    stalled.read_head()
    lines = []
    while True:
        line = stalled.next_line(timeout=10)
        if line is None or "cutoff" in line:
            break
        lines.append(line["seq"])
    # 64 KiB plus one batch (1,000 records) and the socket buffers, where 4 MiB alone holds ~4,900 records.
    assert line is not None and line["lastSeq"] <= 3000, (line, len(lines))
    assert lines == list(range(1, len(lines) + 1))
    stalled.close()


def test_a_gateways_stream_sends_only_its_records_and_ends_when_it_is_deleted(server_factory):
    from test_gateways import create, gateway_listener

    server = server_factory()
    gateway = create(server, {"name": "suite-s"})
    push_many(server, 2)  # the default gateway's: not on the gateway's stream
    stream = StreamReader(server.control_url, f"{gateway['controlBase']}/v1/deliveries/stream?format=ndjson")
    assert stream.status == 200, stream.body
    response = server.push(listener=gateway_listener(gateway), headers=(("apns-topic", "com.example.s"),))
    assert response.status == 200, response.body
    line = stream.next_line()
    assert line["seq"] == 1 and line["topic"] == "com.example.s" and line["listener"] == "suite-s", line
    assert stream.next_line(timeout=0.3) is None, "the default gateway's records stay off it"
    assert server.delete(f"/v1/gateways/{gateway['id']}").status == 200
    end = stream.next_line()
    assert end == {"end": True, "lastSeq": 1, "reason": "gateway deleted"}, end
    stream.close()


def test_stalled_streams_over_a_full_store_leave_the_control_api_fast(server_factory, tmp_path):
    # Each tick writes at most 100 records per stream per pass and 1 MiB across every stream, so
    # 20 new consumers of a full store (that never read) do not hold the control loop.
    n = 100000
    server = server_factory("--max-records", str(n))
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"' + b"x" * 400 + b'"}}')
    h2load_result(h2load(server, n, payload), n)
    stalled = [
        StreamReader(server.control_url, "/v1/deliveries/stream?after=0", rcvbuf=4096, read=False) for _ in range(20)
    ]
    time.sleep(0.05)
    times = []
    for _ in range(15):
        start = time.monotonic()
        with urllib.request.urlopen(server.control_url + "/v1/health", timeout=30) as answer:
            assert answer.status == 200
        times.append(time.monotonic() - start)
        time.sleep(0.05)
    for reader in stalled:
        reader.close()
    assert max(times) < 0.5 and sorted(times)[len(times) // 2] < 0.2, times
    print(f"/v1/health with 20 stalled streams over {n} records: max {max(times) * 1000:.0f} ms")
