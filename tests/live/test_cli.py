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
    cores = os.cpu_count() or 1
    default = server_factory()
    assert default.get_json("/v1/health")["workers"] == max(1, cores - 1)
    explicit = server_factory("--workers", "3")
    assert explicit.get_json("/v1/health")["workers"] == 3
    # Every worker serves: more connections than workers all get answers.
    for _ in range(4):
        assert explicit.push().status == 200
