"""The pytest plugin (entry point `pytest11`, or `-p mockapns.pytest_plugin`): a `mock_apns` fixture.

One MockAPNs per test session: the binary started on port 0 (`--mock-apns-bin PATH` or
`MOCK_APNS_BIN`, else `mock-apns` on PATH), or a running one (`--mock-apns-url`, its control URL;
`--mock-apns-push-url` when its APNs listener is not the health answer's first address,
`--mock-apns-ca` for the CA to trust; without it, `ca_file` is the repository's `tls/ca.pem` when
the server serves `tls/server.pem`, else the certificate the listener serves as `GET /v1/health`
names it (`listeners[].certificate`), written to a file; a server whose health names none is a
usage error asking for `--mock-apns-ca`).

The certificate of a started binary: `--mock-apns-tls-cert`/`--mock-apns-tls-key` (with
`--mock-apns-ca` when a CA signed it), else the repository's TEST-ONLY `tls/` found above the
binary or the working directory, else the server's ephemeral self-signed one. Without a CA given
(the ephemeral certificate, or one of your own), `ca_file` is the certificate the server serves,
from its ready file. `--mock-apns-ca` alone, with no `tls/` found, is a usage error: the server
would serve an ephemeral certificate that CA did not sign.

Under pytest-xdist (`pytest -n N`) the workers share ONE server: the first worker to need it
starts it and writes where it is to `mockapns-server.json` in the run's shared temporary directory
(`tmp_path_factory.getbasetemp().parent`), under an `fcntl` lock on `mockapns-server.lock`; the
others read that file and attach. The controlling process stops it (SIGTERM) once every worker is
done, crashed ones included, in its `pytest_sessionfinish`.

Each test's `mock_apns` is an isolated gateway of its own (`POST /v1/gateways`, docs/testing.md
"Isolated gateways"), named after the test (`name-2`, `name-3`, ... while a live gateway of a suite
alongside holds the name: names of live gateways are unique): its `push_url` is that gateway's APNs port and its `client` is bound to the
gateway's `controlBase`, so it sees only its own records, events, rules and devices, even when
suites share one server in parallel (`pytest -n`, pytest-xdist). The gateway is deleted at
teardown (and expires by itself after `--mock-apns-gateway-ttl` seconds untouched, 600 by default,
should the run crash). `@pytest.mark.mock_apns_default_gateway` uses the server's default gateway
instead, scoped with `after` to the seq the test started at. `server_client` is always the
server's own client.

After a test that used `mock_apns` passes, `GET /v1/verify/teardown?after=<seq>` runs and the test
fails with its message when a push was rejected other than by a fault rule or a stream got no
answer; `@pytest.mark.mock_apns_no_teardown_check` opts out.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import ssl
import time
import urllib.parse
from pathlib import Path
from typing import Any, Mapping

import pytest

from .client import MockAPNs, MockAPNsError
from .process import MockAPNsProcess, _find_tls_dir

__all__ = ["MockAPNsFixture", "MockAPNsServer"]

NO_TEARDOWN_CHECK = "mock_apns_no_teardown_check"
DEFAULT_GATEWAY = "mock_apns_default_gateway"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockapns", "MockAPNs")
    group.addoption("--mock-apns-bin", default=None,
                    help="the mock-apns binary to start on port 0 (default: MOCK_APNS_BIN, else mock-apns on PATH)")
    group.addoption("--mock-apns-url", default=None,
                    help="use the running MockAPNs whose control API is at this URL instead of starting one")
    group.addoption("--mock-apns-push-url", default=None,
                    help="with --mock-apns-url: the APNs listener's URL (default https:// and the health answer's "
                         "first listener address)")
    group.addoption("--mock-apns-ca", default=None,
                    help="the CA file a client trusts (default: the repository's tls/ca.pem when found)")
    group.addoption("--mock-apns-tls-cert", default=None,
                    help="the PEM certificate the started binary serves (with --mock-apns-tls-key; default: the "
                         "repository's tls/server.pem when found, else the server's ephemeral one)")
    group.addoption("--mock-apns-tls-key", default=None, help="the PEM key of --mock-apns-tls-cert")
    group.addoption("--mock-apns-gateway-ttl", type=int, default=600,
                    help="seconds an isolated gateway of a test lives untouched (it is deleted at teardown anyway)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{NO_TEARDOWN_CHECK}: skip the mock_apns teardown check (rejected or unanswered pushes)")
    config.addinivalue_line(
        "markers", f"{DEFAULT_GATEWAY}: give mock_apns the server's default gateway, not an isolated one")
    if not config.getoption("--mock-apns-url"):
        _start_options(config)  # a CA that cannot match is a usage error before any test runs


class MockAPNsServer:
    """The session's server: `push_url`, `ca_file` (a path or None), `client`, and `process`
    (the `MockAPNsProcess` when the plugin started it, else None)."""

    def __init__(self, push_url: str, ca_file: Path | None, client: MockAPNs,
                 process: MockAPNsProcess | None = None):
        self.push_url = push_url
        self.ca_file = ca_file
        self.client = client
        self.process = process


class MockAPNsFixture:
    """What `mock_apns` gives a test: `push_url`, `ca_file`, `client` (the whole control API of
    the test's gateway), `gateway` (`POST /v1/gateways`'s answer, None on the default gateway),
    `server_client` (the server's own), `start_seq` (the newest seq when the test started: 0 on
    an isolated gateway), and checks scoped to this test's records (`after=start_seq` unless given)."""

    def __init__(self, server: MockAPNsServer, start_seq: int, gateway: dict | None = None):
        self.server = server
        self.gateway = gateway
        self.push_url = _with_port(server.push_url, gateway["port"]) if gateway else server.push_url
        self.ca_file = server.ca_file
        self.server_client = server.client
        self.client = server.client.for_gateway(gateway) if gateway else server.client
        self.start_seq = start_seq

    def _scoped(self, fields: dict[str, Any]) -> dict[str, Any]:
        fields.setdefault("after", self.start_seq)
        return fields

    def deliveries(self, **filters: Any) -> list[dict]:
        """This test's records (with `filters`), oldest first."""
        return self.client.deliveries(**self._scoped(filters))["deliveries"]

    def wait_for(self, count: int = 1, *, timeout_ms: int = 5000, **filters: Any) -> list[dict]:
        """Wait for `count` matching records of this test; AssertionError with what matched when
        they do not come within `timeout_ms`."""
        __tracebackhide__ = True
        answer = self.client.wait_for_deliveries(count, timeout_ms=timeout_ms, **self._scoped(filters))
        if not answer["complete"]:
            raise AssertionError(f"expected {count} push(es) matching {filters or 'anything'} within "
                                 f"{timeout_ms} ms; {answer['matched']} arrived")
        return answer["deliveries"]

    def verify(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`POST /v1/verify` scoped to this test; the answer, passing or not."""
        return self.client.verify(payload, **self._scoped(expectation))

    def assert_delivered(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`POST /v1/verify` scoped to this test: AssertionError with the server's message (what
        was expected, how many matched, the closest records and their differing fields) on 406."""
        __tracebackhide__ = True
        return self.client.assert_delivered(payload, **self._scoped(expectation))

    def assert_not_delivered(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`assert_delivered(..., never=True)`: no matching push (watched `within_ms` when given)."""
        __tracebackhide__ = True
        return self.assert_delivered(payload, never=True, **expectation)

    def teardown_check(self) -> dict:
        """`GET /v1/verify/teardown?after=start_seq` (what runs after the test)."""
        return self.client.teardown_check(after=self.start_seq)


SHARED_STATE = "mockapns-server.json"
SHARED_LOCK = "mockapns-server.lock"


def _start_options(config: pytest.Config) -> dict[str, Any]:
    """`MockAPNsProcess` arguments from the options; `pytest.UsageError` for a CA that cannot match."""
    binary = config.getoption("--mock-apns-bin") or os.environ.get("MOCK_APNS_BIN")
    if binary and not Path(binary).is_absolute():
        binary = str(Path(config.invocation_params.dir) / binary)
    cert, key = config.getoption("--mock-apns-tls-cert"), config.getoption("--mock-apns-tls-key")
    ca = config.getoption("--mock-apns-ca")
    if bool(cert) != bool(key):
        raise pytest.UsageError("--mock-apns-tls-cert and --mock-apns-tls-key go together")
    if ca and not cert:
        found = binary and _find_tls_dir(Path(binary).resolve().parent, Path.cwd())
        if not found and not _find_tls_dir(Path.cwd()):
            raise pytest.UsageError(
                "--mock-apns-ca without --mock-apns-tls-cert/--mock-apns-tls-key and no tls/ found: the server "
                "would serve an ephemeral self-signed certificate that CA did not sign; pass the certificate and "
                "key it signed, or leave --mock-apns-ca out to trust the certificate the server serves")
    return {"binary": binary, "tls_cert": cert, "tls_key": key, "ca_file": ca}


def _shared_dir(config: pytest.Config) -> Path | None:
    """Under pytest-xdist, the directory every worker and the controller share; else None."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return None
    if hasattr(config, "workerinput"):
        return factory.getbasetemp().parent
    if config.pluginmanager.hasplugin("dsession"):  # the xdist controller: its basetemp is that parent
        return factory.getbasetemp()
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _shared_server(config: pytest.Config, shared: Path) -> MockAPNsServer:
    """The run's one server: started by the first worker that asks, read by the others."""
    state_path = shared / SHARED_STATE
    with open(shared / SHARED_LOCK, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed, or by the kernel if the worker dies
        if state_path.exists():
            state = json.loads(state_path.read_text())
            if not _alive(state["pid"]):
                raise RuntimeError(f"the run's shared mock-apns (pid {state['pid']}) is gone; its log: "
                                   f"{Path(state['workdir']) / 'stderr.log'}")
        else:
            workdir = shared / "mockapns-server"
            process = MockAPNsProcess(**_start_options(config), workdir=workdir).start()
            state = {"pid": process.pid, "controlURL": process.control_url, "pushURL": process.push_url,
                     "caFile": str(process.ca_file) if process.ca_file else None, "workdir": str(workdir),
                     "startedBy": os.environ.get("PYTEST_XDIST_WORKER", "")}
            temporary = state_path.with_suffix(".tmp")
            temporary.write_text(json.dumps(state))
            temporary.rename(state_path)
    ca = state["caFile"]
    return MockAPNsServer(state["pushURL"], Path(ca) if ca else None, MockAPNs(state["controlURL"]))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On the xdist controller, once every worker is done: stop the run's shared server."""
    config = session.config
    if hasattr(config, "workerinput") or config.getoption("--mock-apns-url"):
        return
    shared = _shared_dir(config)
    state_path = shared / SHARED_STATE if shared else None
    if state_path is None or not state_path.exists():
        return
    state = json.loads(state_path.read_text())
    pid = int(state["pid"])
    if _alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    state_path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def mock_apns_server(request: pytest.FixtureRequest):
    """The session's MockAPNs (started, shared across xdist workers, or the running one of `--mock-apns-url`)."""
    config = request.config
    url = config.getoption("--mock-apns-url")
    ca_option = config.getoption("--mock-apns-ca")
    if url:
        client = MockAPNs(url)
        listeners = client.health()["listeners"]
        push_url = config.getoption("--mock-apns-push-url")
        if not push_url:
            address = listeners[0]["address"]
            push_url = address if "://" in address else f"https://{address}"
        ca_file = Path(ca_option) if ca_option else _served_ca(
            url, push_url, listeners, request.getfixturevalue("tmp_path_factory"))
        yield MockAPNsServer(push_url, ca_file, client)
        return
    shared = _shared_dir(config)
    if shared is not None:
        yield _shared_server(config, shared)  # the controller stops it (pytest_sessionfinish)
        return
    process = MockAPNsProcess(**_start_options(config)).start()
    try:
        yield MockAPNsServer(process.push_url, process.ca_file, process.client, process)
    finally:
        code = process.stop()
        if code != 0:
            raise RuntimeError(f"mock-apns exited {code} at stop: {process.stderr_text().strip()}")


def _first_certificate(pem: str) -> bytes | None:
    """The DER of the first certificate in `pem`, or None."""
    match = re.search(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", pem, re.S)
    return ssl.PEM_cert_to_DER_cert(match[0]) if match else None


def _served_ca(url: str, push_url: str, listeners: list[dict], factory: pytest.TempPathFactory) -> Path | None:
    """The CA file for a running server given without `--mock-apns-ca`: None for a plaintext
    push URL; the repository's `tls/ca.pem` when the server serves its `tls/server.pem`; else the
    certificate the listener serves, as `GET /v1/health` names it, written to a file. A TLS
    server whose health names no certificate (older than this plugin) is a usage error saying
    which option to pass."""
    if push_url.startswith("http://"):
        return None
    port = urllib.parse.urlsplit(push_url).port
    listener = next((entry for entry in listeners if urllib.parse.urlsplit(
        entry["address"] if "://" in entry["address"] else f"https://{entry['address']}").port == port),
        listeners[0] if listeners else {})
    served = listener.get("certificate")
    tls = _find_tls_dir(Path.cwd())
    if not served:
        if tls:
            return tls / "ca.pem"
        raise pytest.UsageError(
            f"the MockAPNs at {url} names no served certificate in GET /v1/health (a server older than this "
            f"plugin): pass --mock-apns-ca with the CA file (or the certificate) to trust for {push_url}")
    if tls and _first_certificate((tls / "server.pem").read_text()) == _first_certificate(served):
        return tls / "ca.pem"
    path = factory.mktemp("mockapns-served") / "served-certificate.pem"
    path.write_text(served)
    return path


def _with_port(url: str, port: int) -> str:
    """`url` (scheme://host:port) with its port replaced: the gateway is on the same host."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}:{port}"


def _gateway_name(node: pytest.Item) -> str:
    """A listener name from the test's name: letters, digits, `-`, `_`, `.`, at most 64."""
    return (re.sub(r"[^A-Za-z0-9._-]+", "-", node.name).strip("-") or "test")[:64]


def _create_gateway(client: MockAPNs, name: str, ttl_seconds: int) -> dict:
    """A gateway named `name`, or `name-2`, `name-3`, ... while a live gateway holds the name (409:
    a test of the same name in a suite running alongside)."""
    candidate = name
    for attempt in range(2, 1000):
        try:
            return client.create_gateway(name=candidate, ttl_seconds=ttl_seconds)
        except MockAPNsError as error:
            if error.status != 409:
                raise
            suffix = f"-{attempt}"
            candidate = name[:64 - len(suffix)] + suffix
    return client.create_gateway(ttl_seconds=ttl_seconds)  # named by its id


@pytest.fixture
def mock_apns(mock_apns_server: MockAPNsServer, request: pytest.FixtureRequest):
    """This test's view of the session's MockAPNs; see the module's doc comment."""
    if request.node.get_closest_marker(DEFAULT_GATEWAY) is not None:
        yield MockAPNsFixture(mock_apns_server, mock_apns_server.client.last_seq())
        return
    client = mock_apns_server.client
    gateway = _create_gateway(client, _gateway_name(request.node), request.config.getoption("--mock-apns-gateway-ttl"))
    try:
        yield MockAPNsFixture(mock_apns_server, 0, gateway)
    finally:
        try:
            client.delete_gateway(gateway["id"])
        except MockAPNsError as error:
            if error.status != 404:  # expired meanwhile: nothing left to delete
                raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After a passing test that used `mock_apns`: the teardown check, failing the test with its
    message (in the call phase, so it reports as the test's failure), at the test: no plugin frames
    (`pytest.fail(..., pytrace=False)`)."""
    result = yield
    fixture = getattr(item, "funcargs", {}).get("mock_apns")
    if isinstance(fixture, MockAPNsFixture) and item.get_closest_marker(NO_TEARDOWN_CHECK) is None:
        answer = fixture.teardown_check()
        if not answer.get("ok"):
            pytest.fail(f"MockAPNs teardown check: {answer.get('message', answer)}", pytrace=False)
    return result
