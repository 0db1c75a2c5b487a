"""The delivery journal (`--journal FILE`, README "Journal"): records survive a restart and a
`kill -9`; with `--journal-sync always` no push that was answered is lost; a clear is a marker
line; a torn last line is dropped with a warning naming its byte offset; a bad line before the
last refuses the start, naming its line."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid

from livelib import TOKEN, apns_headers, binary_path, h2_client_for

BODY = b'{"aps":{"alert":"journal"}}'


def listed_apns_ids(server) -> tuple[set[str], list[int]]:
    """Every stored record's apns-id and seq, paging with `after`."""
    ids: set[str] = set()
    seqs: list[int] = []
    after = 0
    while True:
        page = server.deliveries(after=after, limit=5000)
        for record in page["deliveries"]:
            ids.add(record["apnsId"].lower())
            seqs.append(record["seq"])
        if not page["deliveries"] or not page.get("more"):
            return ids, seqs
        after = page["deliveries"][-1]["seq"]


def load(server, answered: set[str], stop: threading.Event, errors: list[str]) -> None:
    """Pushes with fresh apns-ids, 50 in flight, until the connection dies; every one answered
    200 goes into `answered`."""
    try:
        client = h2_client_for(server.listener, timeout=10)
        client.wait_for_settings()
    except Exception as exc:  # the server may already be gone
        errors.append(repr(exc))
        return
    inflight: dict[int, str] = {}
    try:
        while not client.closed:
            while len(inflight) < 50 and not stop.is_set():
                apns_id = str(uuid.uuid4())
                sid = client.start_request(apns_headers(TOKEN, extra=[("apns-id", apns_id)]), BODY)
                inflight[sid] = apns_id
            client._receive_once(0.05)
            client._send_pending_data()
            for sid in [s for s in inflight if client.responses[s].status is not None]:
                if client.responses[sid].status == 200:
                    answered.add(inflight[sid])
                del inflight[sid]
                client.responses.pop(sid, None)
            client.frames.clear()
            if stop.is_set() and not inflight:
                break
    except Exception:  # the kill: the connection ends under us
        pass
    finally:
        try:
            client.close()
        except Exception:
            pass


def test_kill_9_under_load_loses_no_answered_push(server_factory, tmp_path):
    journal = tmp_path / "journal.ndjson"
    args = ("--journal", str(journal), "--journal-sync", "always")
    server = server_factory(*args)
    answered: set[str] = set()
    stop = threading.Event()
    errors: list[str] = []
    threads = [threading.Thread(target=load, args=(server, answered, stop, errors)) for _ in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while len(answered) < 3000 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.proc.kill()  # SIGKILL, mid-load: nothing is flushed on the way out
    server.proc.wait(5)
    server_factory.servers.remove(server)  # killed on purpose: not a failed stop
    server._stderr_file.close()
    stop.set()
    for t in threads:
        t.join(15)
    assert not errors, errors
    assert len(answered) >= 1000, f"only {len(answered)} pushes answered before the kill"

    again = server_factory(*args)
    ids, seqs = listed_apns_ids(again)
    lost = answered - ids
    print(f"{len(answered)} answered before kill -9, {len(ids)} listed after the restart, {len(lost)} lost")
    assert not lost, f"{len(lost)} answered pushes lost, e.g. {sorted(lost)[:3]}"
    assert seqs == list(range(1, len(seqs) + 1)), "seq runs on from 1 without a gap"
    # Numbering goes on after the journal's last record.
    response = again.push()
    assert response.status == 200
    assert again.stats()["lastSeq"] == len(seqs) + 1


def test_a_restart_keeps_records_seq_and_clears(server_factory, tmp_path):
    journal = tmp_path / "journal.ndjson"
    args = ("--journal", str(journal))
    server = server_factory(*args)
    for _ in range(3):
        assert server.push().status == 200
    assert server.delete("/v1/deliveries").json["cleared"] == 3
    kept = [server.push(headers=(("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
                                 ("apns-id", str(uuid.uuid4())))) for _ in range(2)]
    before = server.deliveries()["deliveries"]
    assert server.stop()[0] == 0
    assert '{"clear":true,"lastSeq":3}' in journal.read_text()

    again = server_factory(*args)
    after = again.deliveries()["deliveries"]
    assert [r["seq"] for r in after] == [4, 5]
    assert after == before, "what is read back equals what was recorded"
    assert {r["apnsId"].lower() for r in after} == {k.header("apns-id").lower() for k in kept}
    stats = again.stats()
    assert (stats["lastSeq"], stats["records"], stats["cleared"], stats["evictedTotal"]) == (5, 2, 3, 0)
    assert stats["cleared"] + stats["records"] + stats["evictedTotal"] == stats["requests"]
    assert again.push().status == 200
    assert again.stats()["lastSeq"] == 6


def test_a_torn_last_line_is_dropped_with_its_offset_and_a_bad_middle_line_refuses(server_factory, tmp_path):
    journal = tmp_path / "journal.ndjson"
    args = ("--journal", str(journal))
    server = server_factory(*args)
    for _ in range(3):
        assert server.push().status == 200
    assert server.stop()[0] == 0
    good = journal.stat().st_size
    with open(journal, "ab") as f:
        f.write(b'{"seq":4,"status":200,"rec')  # a crash in the middle of a write
    again = server_factory(*args)
    assert [r["seq"] for r in again.deliveries()["deliveries"]] == [1, 2, 3]
    assert again.push().status == 200
    assert again.stop()[0] == 0
    assert f"from byte offset {good}" in again.stderr_text()
    lines = journal.read_bytes().split(b"\n")
    assert lines[-1] == b"" and b"rec\n" not in journal.read_bytes(), "the torn bytes were cut off"

    lines[2] = b"garbage"
    journal.write_bytes(b"\n".join(lines))
    refused = subprocess.run(
        [str(binary_path()), "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--plaintext",
         "--journal", str(journal)],
        capture_output=True, text=True, timeout=20)
    assert refused.returncode == 2, refused
    assert f"journal {journal}, line 3: not valid JSON" in refused.stderr, refused.stderr
