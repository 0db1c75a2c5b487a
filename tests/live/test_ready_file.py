"""--ready-file (bound ports and URLs as JSON, written atomically once listening) and
`mock-apns health` (exit 0 when /v1/health answers ok), against the real binary."""

from __future__ import annotations

import json
import socket
import subprocess

from livelib import CONTROL_LINE, LISTENER_LINE, binary_path


def test_ready_file_names_the_bound_ports_and_goes_at_stop(server_factory, tmp_path):
    ready = tmp_path / "ready.json"
    server = server_factory("--ready-file", str(ready))
    document = json.loads(ready.read_text())
    assert set(document) == {"version", "pid", "listeners", "control"}
    assert document["pid"] == server.proc.pid
    [listener] = document["listeners"]
    assert listener["port"] == server.port != 0
    assert listener["url"] == server.apns_url
    assert listener["tls"] is True and listener["environment"] == "sandbox"
    assert document["control"]["url"] == server.control_url
    assert document["control"]["port"] == int(server.control_url.rsplit(":", 1)[1])
    # The start-up lines say the same (their format is stable, README).
    assert LISTENER_LINE.match(server.stdout_lines[0]) and CONTROL_LINE.match(server.stdout_lines[1])
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("ready.json.tmp")] == []
    rc, _ = server.stop()
    assert rc == 0
    assert not ready.exists(), "a stopped server's ready file is removed"


def test_ready_file_that_cannot_be_written_stops_the_start(tmp_path):
    proc = subprocess.run(
        [str(binary_path()), "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
         "--ready-file", str(tmp_path / "missing" / "ready.json")],
        capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "cannot write the ready file" in proc.stderr and "No such file or directory" in proc.stderr


def health(*args):
    return subprocess.run([str(binary_path()), "health", *args], capture_output=True, text=True, timeout=30)


def test_health_subcommand(server_factory):
    server = server_factory()
    proc = health("--control", server.control_url)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("mock-apns health: healthy: MockAPNs ")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    proc = health("--control", f"http://127.0.0.1:{port}")
    assert proc.returncode == 1
    assert "unhealthy: cannot reach" in proc.stderr
    proc = health("--control", "not a url")
    assert proc.returncode == 2, proc.stderr
