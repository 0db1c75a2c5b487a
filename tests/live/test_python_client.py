"""The Python package of clients/python (issue 17 §5): the `MockAPNs` client and `MockAPNsProcess`
against the real binary, and the pytest plugin's `mock_apns` fixture run in a subprocess on an example
suite, the README's "Python" example among it. Nothing is installed: clients/python/src goes on
sys.path here and on PYTHONPATH for the subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from livelib import REPO_ROOT, binary_path

PACKAGE_SRC = REPO_ROOT / "clients" / "python" / "src"
if str(PACKAGE_SRC) not in sys.path:
    sys.path.insert(0, str(PACKAGE_SRC))

from mockapns import MockAPNs, MockAPNsError, MockAPNsProcess, MockAPNsStartError  # noqa: E402

TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"


def curl_push(server: MockAPNsProcess, token: str, payload, *, headers=()) -> tuple[int, str]:
    cmd = ["curl", "-sS", "--http2", "--cacert", str(server.ca_file), "-w", "\n%{http_code}",
           "-H", "apns-topic: com.example.app", "--data", json.dumps(payload)]
    for header in headers:
        cmd += ["-H", header]
    proc = subprocess.run(cmd + [f"{server.push_url}/3/device/{token}"], capture_output=True, text=True,
                          timeout=20)
    assert proc.returncode == 0, proc.stderr
    body, code = proc.stdout.rsplit("\n", 1)
    return int(code), body


@pytest.fixture(scope="module")
def process():
    server = MockAPNsProcess(binary_path()).start()
    yield server
    assert server.stop() == 0, server.stderr_text()


def test_process_reads_its_ports_from_the_ready_file_and_stops_with_sigterm():
    server = MockAPNsProcess(binary_path())
    with pytest.raises(MockAPNsStartError, match="not started"):
        server.push_url
    with server:
        [listener] = server.listeners
        assert listener["port"] != 0 and server.push_url == f"https://127.0.0.1:{listener['port']}"
        assert server.ca_file == REPO_ROOT / "tls" / "ca.pem"
        assert server.client.health()["status"] == "ok"
        assert server.pid == server.proc.pid
        ready = Path(server.proc.args[server.proc.args.index("--ready-file") + 1])
        assert ready.is_file()
    assert server.proc.returncode == 0
    assert not ready.exists(), "a graceful stop removes the ready file"


def test_process_that_cannot_start_says_why(tmp_path, monkeypatch):
    with monkeypatch.context() as empty:
        empty.delenv("MOCK_APNS_BIN", raising=False)
        empty.setenv("PATH", str(tmp_path))
        with pytest.raises(MockAPNsStartError, match=r"pass binary= \(under pytest: --mock-apns-bin PATH\)"):
            MockAPNsProcess()
    with pytest.raises(MockAPNsStartError, match="not found"):
        MockAPNsProcess(tmp_path / "missing")
    server = MockAPNsProcess(binary_path(), args=["--no-such-option"])
    with pytest.raises(MockAPNsStartError, match=r"exited during start \(exit 2\)"):
        server.start()


def test_client_deliveries_verify_and_teardown(process):
    client = process.client
    start = client.last_seq()
    assert curl_push(process, TOKEN, {"aps": {"alert": {"title": "Your order has shipped"}}}) == (200, "")
    waited = client.wait_for_deliveries(1, timeout_ms=5000, token=TOKEN.upper(), after=start, status=200)
    assert waited["complete"] is True and waited["matched"] == 1
    [record] = waited["deliveries"]
    assert client.delivery(record["seq"])["apnsId"] == record["apnsId"]
    assert client.deliveries(after=start, push_type="alert")["deliveries"] == [record]  # inferred
    assert client.last_seq() == record["seq"]

    passing = client.verify({"aps.alert.title": "Your order has shipped"}, token=TOKEN, after=start, exactly=1)
    assert passing["ok"] is True and passing["matched"] == 1
    failing = client.verify({"aps.alert.title": "Your order shipped"}, after=start, exactly=1)
    assert failing["ok"] is False and failing["nearMisses"][0]["seq"] == record["seq"]
    with pytest.raises(AssertionError) as raised:
        client.assert_delivered({"aps.alert.title": "Your order shipped"}, after=start, at_least=1, within_ms=200)
    assert 'payload.aps.alert.title: expected "Your order shipped", got "Your order has shipped"' in str(raised.value)
    assert client.assert_delivered(token=TOKEN, after=start)["ok"] is True

    assert client.teardown_check(after=start)["ok"] is True
    status, body = curl_push(process, "zz", {"aps": {}})
    assert (status, json.loads(body)) == (400, {"reason": "BadDeviceToken"})
    dirty = client.teardown_check(after=start)
    assert dirty["ok"] is False and "400 BadDeviceToken" in dirty["message"]

    cleared = client.clear_deliveries()
    assert cleared["cleared"] >= 2 and client.deliveries()["deliveries"] == []
    assert client.stats()["requests"] >= 2
    assert "mock_apns_pushes_total" in client.metrics()
    assert client.metrics(openmetrics=True).rstrip().endswith("# EOF")


def test_client_errors_carry_the_servers_message(process):
    client = process.client
    with pytest.raises(MockAPNsError) as raised:
        client.delete_fault("nope")
    assert raised.value.status == 404 and raised.value.message == "no fault rule with id nope"
    with pytest.raises(MockAPNsError) as raised:
        client.set_clock("soon")
    assert raised.value.status == 400 and raised.value.message.startswith("offsetSeconds")
    with pytest.raises(MockAPNsError) as raised:
        client.verify(exactly=1, at_least=1)
    assert raised.value.status == 400
    with pytest.raises(MockAPNsError) as raised:
        MockAPNs("http://127.0.0.1:1").health()
    assert raised.value.status == 0 and "cannot reach" in raised.value.message
    with pytest.raises(ValueError):
        client.connection_action(1, "explode")


def test_client_devices_faults_connections_events_clock_channels(process):
    client = process.client
    device = client.put_device(TOKEN, environment="sandbox", topic="com.example.app", virtual=True,
                               app_state="background")
    assert device["virtual"] is True and device["appState"] == "background"
    assert client.patch_device(TOKEN, connectivity="offline")["connectivity"] == "offline"
    assert client.device(TOKEN)["connectivity"] == "offline"
    assert [d["token"] for d in client.devices(limit=10)["devices"]] == [TOKEN]
    client.patch_device(TOKEN, connectivity="online", app_state="foreground")
    start = client.last_seq()
    assert curl_push(process, TOKEN, {"aps": {"alert": "hi"}})[0] == 200
    seq = client.last_seq()
    assert seq > start
    client.patch_device(TOKEN, app_state="background")
    assert curl_push(process, TOKEN, {"aps": {"alert": "shown"}})[0] == 200
    shown = client.wait_for_deliveries(1, after=seq, presentation="shown")["deliveries"][0]["seq"]
    interaction = client.interact(TOKEN, shown, "tap")
    assert interaction, interaction
    client.delete_device(TOKEN)
    with pytest.raises(MockAPNsError) as raised:
        client.device(TOKEN)
    assert raised.value.status == 404
    client.clear_devices()

    added = client.add_faults({"id": "py1", "match": {"token": TOKEN},
                               "action": {"type": "respond", "reason": "ServiceUnavailable"}})
    assert added, added
    assert [rule["id"] for rule in client.faults()["faults"]] == ["py1"]
    assert client.fault("py1")["id"] == "py1"
    start = client.last_seq()
    assert curl_push(process, TOKEN, {"aps": {}})[0] == 503
    assert client.teardown_check(after=start)["ok"] is True, "a fault rule's rejection is not a failure"
    client.delete_fault("py1")
    client.add_faults([{"action": {"type": "respond", "reason": "ServiceUnavailable"}}])
    client.clear_faults()
    assert client.faults()["faults"] == []

    assert client.connections()["connections"] == []
    assert client.all_connections_action("goaway") == {"action": "goaway", "ids": []}
    with pytest.raises(MockAPNsError) as raised:
        client.goaway(999, reason="Shutdown")
    assert raised.value.status == 404
    assert client.listeners()["listeners"][0]["name"] == "default"
    client.set_listener_conditions("default", handshake_delay_ms=0)
    events = client.events(kind="opened")
    assert events["events"] and all(event["kind"] == "opened" for event in events["events"])
    assert client.wait_for_events(1, timeout_ms=1000, kind="closed")["complete"] is True
    client.clear_events()
    assert client.events()["events"] == []

    assert client.set_clock(60)["offsetSeconds"] == 60
    assert client.clock()["offsetSeconds"] == 60
    client.set_clock(0)
    assert client.channels()["channels"] == []
    assert client.feedback()["count"] == 0
    assert client.delivery_metrics()["total"]["received"] >= 2


def test_client_sends_the_control_token():
    with MockAPNsProcess(binary_path(), control_token="s3cret-py") as server:
        assert server.client.health()["status"] == "ok"
        with pytest.raises(MockAPNsError) as raised:
            MockAPNs(server.control_url, token="").health()
        assert raised.value.status == 401
        previous = os.environ.get("MOCK_APNS_CONTROL_TOKEN")
        os.environ["MOCK_APNS_CONTROL_TOKEN"] = "s3cret-py"
        try:
            assert MockAPNs(server.control_url).stats()["requests"] == 0
        finally:
            if previous is None:
                del os.environ["MOCK_APNS_CONTROL_TOKEN"]
            else:
                os.environ["MOCK_APNS_CONTROL_TOKEN"] = previous


# ---- the pytest plugin, in a subprocess ----------------------------------------------------------


def readme_python_example() -> str:
    """The README's complete example: the ```python block of the section "Python: ..."."""
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("\n## Python: a client and a pytest plugin\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S)[1]


PLUGIN_CASES = textwrap.dedent('''
    import json
    import subprocess

    import pytest

    TOKEN = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"


    def push(mock_apns, token, title):
        answer = subprocess.run(
            ["curl", "-sS", "--http2", "--cacert", str(mock_apns.ca_file), "-o", "/dev/null",
             "-w", "%{http_code}", "-H", "apns-topic: com.example.app",
             "--data", json.dumps({"aps": {"alert": {"title": title}}}), f"{mock_apns.push_url}/3/device/{token}"],
            capture_output=True, text=True, check=True)
        return int(answer.stdout)


    def test_near_miss(mock_apns):
        assert push(mock_apns, TOKEN, "Your order has shipped") == 200
        mock_apns.assert_delivered({"aps.alert.title": "Your order shipped"}, token=TOKEN, exactly=1)


    def test_sees_only_its_own_records(mock_apns):
        assert mock_apns.deliveries() == []
        mock_apns.assert_not_delivered(token=TOKEN)


    def test_rejected_push_fails_the_teardown_check(mock_apns):
        assert push(mock_apns, "zz", "bad token") == 400


    @pytest.mark.mock_apns_no_teardown_check
    def test_opted_out(mock_apns):
        assert push(mock_apns, "zz", "bad token") == 400
''')


def run_plugin_suite(tmp_path: Path, *options: str, path_dir: Path | None = None) -> subprocess.CompletedProcess:
    """The README's example and PLUGIN_CASES in `tmp_path`, run by pytest in a subprocess;
    `path_dir` goes first on PATH (a `mock-apns` found there, as a user's install)."""
    (tmp_path / "test_notifications.py").write_text(readme_python_example())
    (tmp_path / "test_plugin_cases.py").write_text(PLUGIN_CASES)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_SRC), os.environ.get("PYTHONPATH")])))
    env.pop("MOCK_APNS_BIN", None)
    if path_dir is not None:
        env["PATH"] = os.pathsep.join([str(path_dir), env.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "mockapns.pytest_plugin", "-p", "no:cacheprovider",
         "-rA", "-v", "--rootdir", str(tmp_path), *options, str(tmp_path)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)


def outcomes(proc: subprocess.CompletedProcess) -> dict[str, str]:
    found = dict(re.findall(r"::(test_\w+) (PASSED|FAILED|ERROR)", proc.stdout))
    return found


def check_plugin_run(proc: subprocess.CompletedProcess) -> None:
    assert outcomes(proc) == {
        "test_order_shipped_push": "PASSED",
        "test_near_miss": "FAILED",
        "test_sees_only_its_own_records": "PASSED",
        "test_rejected_push_fails_the_teardown_check": "FAILED",
        "test_opted_out": "PASSED",
    }, proc.stdout + proc.stderr
    assert proc.returncode == 1
    # The near miss: the closest record and the field that differed, in the assertion message.
    assert re.search(r'AssertionError: expected exactly 1 push matching token="a1b2\S*", '
                     r'payload.aps.alert.title="Your order shipped", after seq \d+; 0 matched; the closest: seq \d+ '
                     r'\(payload.aps.alert.title: expected "Your order shipped", got "Your order has shipped"\)',
                     proc.stdout), proc.stdout
    # The traceback ends at the test's line: the plugin's and the client's frames are hidden.
    near_miss = proc.stdout.split(" test_near_miss ", 1)[1].split("\n____", 1)[0]
    assert "mock_apns.assert_delivered(" in near_miss, near_miss
    assert "pytest_plugin.py" not in near_miss and "client.py" not in near_miss, near_miss
    assert re.search(r"MockAPNs teardown check: not clean after seq \d+: "
                     r"1 rejected without a fault rule \(seq \d+: 400 BadDeviceToken\)", proc.stdout), proc.stdout
    # The teardown check reports at the test: no plugin frames in its section.
    teardown = proc.stdout.split(" test_rejected_push_fails_the_teardown_check ", 1)[1].split("\n____", 1)[0]
    assert "MockAPNs teardown check: not clean" in teardown, teardown
    assert "pytest_plugin.py" not in teardown and "pluggy" not in teardown, teardown


def test_plugin_starts_the_binary_and_checks_each_test(tmp_path):
    proc = run_plugin_suite(tmp_path, "--mock-apns-bin", str(binary_path()))
    check_plugin_run(proc)


def installed_binary(tmp_path: Path) -> Path:
    """A copy of the binary in a `bin/` outside the repository (no `tls/` above it): as installed."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy2(binary_path(), folder / "mock-apns")
    return folder


def test_plugin_trusts_the_ephemeral_certificate_of_a_binary_on_path(tmp_path):
    """Binary on PATH, suite outside the repository: the server serves its ephemeral certificate
    and `ca_file` is that certificate, from the ready file (the README's `curl --cacert` works)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    proc = run_plugin_suite(suite, path_dir=installed_binary(tmp_path))
    check_plugin_run(proc)


def test_plugin_serves_a_given_certificate_and_refuses_a_ca_alone(tmp_path):
    folder = installed_binary(tmp_path)
    suite = tmp_path / "suite"
    suite.mkdir()
    tls = REPO_ROOT / "tls"
    proc = run_plugin_suite(suite, "--mock-apns-tls-cert", str(tls / "server.pem"), "--mock-apns-tls-key",
                            str(tls / "server-key.pem"), "--mock-apns-ca", str(tls / "ca.pem"), path_dir=folder)
    check_plugin_run(proc)
    # A CA alone, with no tls/ to pair it with: a usage error, not a silent mismatch.
    proc = run_plugin_suite(suite, "--mock-apns-ca", str(tls / "ca.pem"), path_dir=folder)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--mock-apns-ca without --mock-apns-tls-cert" in proc.stderr, proc.stdout + proc.stderr


def test_plugin_uses_a_running_server_by_url(tmp_path, process):
    proc = run_plugin_suite(tmp_path, "--mock-apns-url", process.control_url, "--mock-apns-ca", str(process.ca_file))
    check_plugin_run(proc)
    assert process.client.health()["status"] == "ok", "the plugin leaves a server it did not start running"


def test_plugin_trusts_the_certificate_a_running_server_serves_without_a_ca_option(tmp_path, monkeypatch):
    """`--mock-apns-url` alone, suite outside the repository (no `tls/` to find): `ca_file` is the
    certificate the server serves (here its ephemeral one), as `GET /v1/health` names it (it was
    None, and curl failed)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    folder = installed_binary(tmp_path)
    monkeypatch.chdir(tmp_path)  # no tls/ above the binary or here: the server's ephemeral certificate
    server = MockAPNsProcess(folder / "mock-apns", workdir=tmp_path / "server")
    server.start()
    try:
        served = server.client.health()["listeners"][0]["certificate"]
        assert served.startswith("-----BEGIN CERTIFICATE-----"), served
        proc = run_plugin_suite(suite, "--mock-apns-url", server.control_url)
        check_plugin_run(proc)
    finally:
        assert server.stop() == 0, server.stderr_text()


def test_plugin_asks_for_a_ca_when_a_running_server_names_no_certificate(tmp_path):
    """A TLS server whose health names no served certificate (older than the plugin) and no CA
    given: a usage error saying which option to pass, not a `ca_file` of None."""
    import http.server
    import threading

    class OldHealth(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"status": "ok", "listeners": [{"name": "default", "address": "127.0.0.1:1",
                                                               "environment": "sandbox"}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), OldHealth)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        suite = tmp_path / "suite"
        suite.mkdir()
        proc = run_plugin_suite(suite, "--mock-apns-url", f"http://127.0.0.1:{httpd.server_port}")
    finally:
        httpd.shutdown()
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "names no served certificate in GET /v1/health" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "pass --mock-apns-ca" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


# ---- two suites in parallel (pytest-xdist) against one server: isolated gateways -------------

PARALLEL_SUITE = textwrap.dedent('''
    import json
    import subprocess
    import time

    TOPIC = "com.example.{suite}"
    TOKEN = "{token}"


    def push(mock_apns):
        answer = subprocess.run(
            ["curl", "-sS", "--http2", "--cacert", str(mock_apns.ca_file), "-o", "/dev/null",
             "-w", "%{{http_code}}", "-H", "apns-topic: " + TOPIC,
             "--data", json.dumps({{"aps": {{"alert": "{suite}"}}}}), f"{{mock_apns.push_url}}/3/device/{{TOKEN}}"],
            capture_output=True, text=True, check=True)
        return int(answer.stdout)


    def test_suite_{suite}_sees_only_its_own_records(mock_apns):
        # Both suites' gateways exist at once: the other suite runs meanwhile, on the other worker.
        deadline = time.monotonic() + 30
        while len(mock_apns.server_client.gateways()["gateways"]) < 2:
            assert time.monotonic() < deadline, "the other suite never ran alongside"
            time.sleep(0.05)
        for _ in range({count}):
            assert push(mock_apns) == 200
        mock_apns.wait_for({count}, timeout_ms=5000)
        time.sleep(0.5)  # the other suite's pushes land meanwhile
        records = mock_apns.deliveries()
        assert [record["topic"] for record in records] == [TOPIC] * {count}, records
        mock_apns.assert_delivered(topic=TOPIC, exactly={count})
        assert mock_apns.client.stats()["requests"] == {count}
''')


def test_two_suites_in_parallel_see_only_their_own_records(tmp_path, process):
    """`pytest -n 2` (pytest-xdist): two suites at once against one MockAPNs, each on the isolated
    gateway its `mock_apns` made, each seeing exactly its own pushes; the default gateway sees none."""
    for suite, count in (("alpha", 3), ("beta", 5)):
        (tmp_path / f"test_{suite}.py").write_text(PARALLEL_SUITE.format(suite=suite, count=count, token=TOKEN))
    before = process.client.stats()["requests"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_SRC), os.environ.get("PYTHONPATH")])))
    env.pop("MOCK_APNS_BIN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "mockapns.pytest_plugin", "-p", "no:cacheprovider", "-n", "2",
         "-rA", "-v", "--rootdir", str(tmp_path), "--mock-apns-url", process.control_url,
         "--mock-apns-ca", str(process.ca_file), str(tmp_path)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    passed = re.findall(r"PASSED .*::(test_suite_\w+)", proc.stdout)
    assert sorted(set(passed)) == ["test_suite_alpha_sees_only_its_own_records",
                              "test_suite_beta_sees_only_its_own_records"], proc.stdout
    assert re.search(r"\[gw0\]|\bgw1\b", proc.stdout), "ran on two xdist workers: " + proc.stdout
    assert process.client.stats()["requests"] == before, "the default gateway saw neither suite's pushes"
    assert process.client.gateways()["gateways"] == [], "each suite's gateway was deleted at teardown"


# ---- pytest -n 2 with the plugin starting the binary: ONE server for every xdist worker --------

SHARED_SUITE = textwrap.dedent('''
    import json
    import os


    def record(mock_apns, name):
        with open(os.environ["MOCKAPNS_SEEN"], "a") as seen:
            seen.write(json.dumps({"test": name, "control": mock_apns.server_client.base_url,
                                   "gateway": mock_apns.gateway["id"], "pid": mock_apns.server_client.health().get("pid"),
                                   "worker": os.environ.get("PYTEST_XDIST_WORKER")}) + "\\n")
        assert mock_apns.deliveries() == []


    def test_one(mock_apns):
        record(mock_apns, "one")


    def test_two(mock_apns):
        record(mock_apns, "two")


    def test_three(mock_apns):
        record(mock_apns, "three")


    def test_four(mock_apns):
        record(mock_apns, "four")
''')


def test_xdist_workers_share_one_started_server(tmp_path):
    """`pytest -n 2 --mock-apns-bin`: the first worker starts the server, the other attaches; the
    four tests' gateways g1..g4 are all on one control URL; the server is stopped at the end."""
    (tmp_path / "test_shared.py").write_text(SHARED_SUITE)
    seen = tmp_path / "seen.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_SRC), os.environ.get("PYTHONPATH")])),
               MOCKAPNS_SEEN=str(seen))
    env.pop("MOCK_APNS_BIN", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "mockapns.pytest_plugin", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "load", "-rA", "-v", "--rootdir", str(tmp_path), "--mock-apns-bin", str(binary_path()),
         str(tmp_path)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(line) for line in seen.read_text().splitlines()]
    assert sorted(row["test"] for row in rows) == ["four", "one", "three", "two"], rows
    assert len({row["worker"] for row in rows}) == 2, f"ran on two workers: {rows}"
    assert len({row["control"] for row in rows}) == 1, f"one server: {rows}"
    assert sorted(row["gateway"] for row in rows) == ["g1", "g2", "g3", "g4"], rows
    control = rows[0]["control"]
    try:
        MockAPNs(control, timeout=2).health()
        raise AssertionError(f"the shared server at {control} still answers after the run")
    except MockAPNsError as error:
        assert error.status == 0, error
