"""The command line: help, version, usage errors (exit 2)."""

from __future__ import annotations

import os
import subprocess

from livelib import REPO_ROOT, SERVER_KEY, SERVER_PEM, binary_path


def run(*args, timeout=10):
    try:
        return subprocess.run([str(binary_path()), *args], cwd=REPO_ROOT, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:  # it started serving instead of rejecting the arguments
        raise AssertionError(f"mock-apns {args} did not exit within {timeout}s") from exc


def test_help():
    proc = run("--help")
    assert proc.returncode == 0, proc.stderr
    assert "--listen" in proc.stdout and "--config" in proc.stdout and "--plaintext" in proc.stdout
    assert run("-h").stdout == proc.stdout


def test_version():
    proc = run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith("mock-apns "), proc.stdout
    version = proc.stdout.strip().split()[-1]
    assert version[0].isdigit() and version.count(".") >= 2, version


def test_unknown_flag_exits_2_naming_it():
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--frobnicate")
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "--frobnicate" in proc.stderr, proc.stderr
    assert "MockAPNs" not in proc.stdout  # nothing started


def test_bad_option_value_exits_2():
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--max-concurrent-streams", "0")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "--max-concurrent-streams" in proc.stderr, proc.stderr
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--registry", "ajar")
    assert proc.returncode == 2 and "--registry" in proc.stderr, (proc.returncode, proc.stderr)


def test_config_with_unknown_key_exits_2_naming_it(tmp_path):
    config = tmp_path / "bad.json"
    config.write_text('{\n  // a comment\n  "listeners": [{"listen": "127.0.0.1:0"}],\n'
                      '  "control": "off",\n  "maxRecord": 10,\n}\n')
    proc = run("--config", str(config))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "maxRecord" in proc.stderr, proc.stderr
    assert "MockAPNs" not in proc.stdout

    nested = tmp_path / "nested.json"
    nested.write_text('{"listeners": [{"listen": "127.0.0.1:0", "enviroment": "sandbox"}], "control": "off"}')
    proc = run("--config", str(nested))
    assert proc.returncode == 2 and "enviroment" in proc.stderr, (proc.returncode, proc.stderr)


def test_unreadable_tls_cert_exits_2(tmp_path):
    missing = tmp_path / "no-such-cert.pem"
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--tls-cert", str(missing),
               "--tls-key", str(SERVER_KEY))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert f"cannot read TLS file {missing}: No such file or directory" in proc.stderr, proc.stderr
    assert "MockAPNs" not in proc.stdout

    missing_key = tmp_path / "no-such-key.pem"
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--tls-cert", str(SERVER_PEM),
               "--tls-key", str(missing_key))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert f"cannot read TLS file {missing_key}: No such file or directory" in proc.stderr, proc.stderr

    # A directory passes access(R_OK); the message says what it is.
    proc = run("--listen", "127.0.0.1:0", "--control", "off", "--tls-cert", str(tmp_path),
               "--tls-key", str(SERVER_KEY))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert f"cannot read TLS file {tmp_path}: is a directory" in proc.stderr, proc.stderr
    assert "MockAPNs" not in proc.stdout


def test_worker_threads_default_to_one_per_core_but_one(server_factory):
    """--workers 0 (the default) leaves a core for the sender; /v1/health reports the count."""
    cores = len(os.sched_getaffinity(0))  # the cores this process (and so the server) may use
    default = server_factory()
    assert default.get_json("/v1/health")["workers"] == max(1, cores - 1)
    explicit = server_factory("--workers", "3")
    assert explicit.get_json("/v1/health")["workers"] == 3
    # Every worker serves: more connections than workers all get answers.
    for _ in range(4):
        assert explicit.push().status == 200


def test_automatic_worker_count_follows_cpu_pinning(server_factory):
    """A server pinned to one core (as by `taskset -c N`) starts one worker whatever the machine's size."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})  # the child inherits the mask
    try:
        pinned = server_factory()
    finally:
        os.sched_setaffinity(0, allowed)
    assert pinned.get_json("/v1/health")["workers"] == 1
    assert pinned.push().status == 200


def test_worker_counts_outside_0_to_1024_exit_2_from_the_command_line_and_the_file(tmp_path):
    """--workers and the file's "workers" take an integer from 0 to 1024: anything else is a usage
    error naming the option, and nothing starts."""
    for value in ("-1", "1025", "abc", "1.5", "0x10", ""):
        proc = run("--listen", "127.0.0.1:0", "--control", "off", "--workers", value)
        assert proc.returncode == 2, (value, proc.returncode, proc.stderr)
        assert "--workers" in proc.stderr and "MockAPNs" not in proc.stdout, (value, proc.stderr)
    for value in ("-1", "1025", '"2"', "null", "true", "1.5"):
        config = tmp_path / "workers.json"
        config.write_text(f'{{"listeners": [{{"listen": "127.0.0.1:0"}}], "control": "off", "workers": {value}}}')
        proc = run("--config", str(config))
        assert proc.returncode == 2, (value, proc.returncode, proc.stderr)
        assert "workers" in proc.stderr and "MockAPNs" not in proc.stdout, (value, proc.stderr)


def _threads(pid: int) -> dict[str, int]:
    """Each thread of `pid` with its CPU time so far (user + system, clock ticks)."""
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks[tid] = int(fields[11]) + int(fields[12])
    return ticks


def test_worker_counts_from_the_file_the_command_line_and_the_upper_bound(server_factory):
    """The file's "workers" is used, --workers overrides it (0 too: the automatic count), 1024
    starts 1024 threads that serve; /v1/health reports each count."""
    from_file = server_factory(config={"workers": 2})
    assert from_file.get_json("/v1/health")["workers"] == 2
    automatic = server_factory("--workers", "0", config={"workers": 2})
    assert automatic.get_json("/v1/health")["workers"] == max(1, len(os.sched_getaffinity(0)) - 1)
    overridden = server_factory("--workers", "5", config={"workers": 2})
    assert overridden.get_json("/v1/health")["workers"] == 5
    most = server_factory("--workers", "1024")
    assert most.get_json("/v1/health")["workers"] == 1024
    assert len(_threads(most.proc.pid)) > 1024
    for _ in range(3):
        assert most.push().status == 200


def test_connections_are_spread_over_every_worker(server_factory, tmp_path):
    """--workers 3 and h2load on six connections: three threads (the workers) do the work, in
    about equal shares (two connections each)."""
    server = server_factory("--workers", "3", "--plaintext", "--max-records", "1000", tls=False)
    payload = tmp_path / "payload.json"
    payload.write_bytes(b'{"aps":{"alert":"spread"}}')
    before = _threads(server.proc.pid)
    proc = subprocess.run(["h2load", "-t", "1", "-c", "6", "-m", "50", "-n", "90000", "-d", str(payload),
                           "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
                           f"http://127.0.0.1:{server.port}/3/device/{'ab' * 32}"],
                          capture_output=True, text=True, timeout=120)
    assert "90000 succeeded" in proc.stdout, proc.stdout[-600:]
    after = _threads(server.proc.pid)
    used = sorted((after[tid] - before.get(tid, 0) for tid in after), reverse=True)
    assert used[2] >= 3 and used[2] * 3 >= used[0], used
    assert used[3] * 4 <= used[2], used
