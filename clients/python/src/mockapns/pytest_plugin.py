"""The pytest plugin (entry point `pytest11`, or `-p mockapns.pytest_plugin`): a `mock_apns` fixture.

One MockAPNs per test session: the binary started on port 0 (`--mock-apns-bin PATH` or
`MOCK_APNS_BIN`, else `mock-apns` on PATH), or a running one (`--mock-apns-url`, its control URL;
`--mock-apns-push-url` when its APNs listener is not the health answer's first address,
`--mock-apns-ca` when the CA to trust is not the repository's `tls/ca.pem`).

Each test's `mock_apns` is an isolated gateway of its own (`POST /v1/gateways`, docs/testing.md
"Isolated gateways"): its `push_url` is that gateway's APNs port and its `client` is bound to the
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

import os
import re
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
    group.addoption("--mock-apns-gateway-ttl", type=int, default=600,
                    help="seconds an isolated gateway of a test lives untouched (it is deleted at teardown anyway)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{NO_TEARDOWN_CHECK}: skip the mock_apns teardown check (rejected or unanswered pushes)")
    config.addinivalue_line(
        "markers", f"{DEFAULT_GATEWAY}: give mock_apns the server's default gateway, not an isolated one")


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
        return self.client.assert_delivered(payload, **self._scoped(expectation))

    def assert_not_delivered(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`assert_delivered(..., never=True)`: no matching push (watched `within_ms` when given)."""
        return self.assert_delivered(payload, never=True, **expectation)

    def teardown_check(self) -> dict:
        """`GET /v1/verify/teardown?after=start_seq` (what runs after the test)."""
        return self.client.teardown_check(after=self.start_seq)


@pytest.fixture(scope="session")
def mock_apns_server(request: pytest.FixtureRequest):
    """The session's MockAPNs (started, or the running one of `--mock-apns-url`)."""
    config = request.config
    url = config.getoption("--mock-apns-url")
    ca_option = config.getoption("--mock-apns-ca")
    if url:
        client = MockAPNs(url)
        push_url = config.getoption("--mock-apns-push-url")
        if not push_url:
            listeners = client.health()["listeners"]
            address = listeners[0]["address"]
            push_url = address if "://" in address else f"https://{address}"
        ca_file = Path(ca_option) if ca_option else None
        if ca_file is None:
            tls = _find_tls_dir(Path.cwd())
            ca_file = tls / "ca.pem" if tls else None
        yield MockAPNsServer(push_url, ca_file, client)
        return
    binary = config.getoption("--mock-apns-bin") or os.environ.get("MOCK_APNS_BIN")
    if binary and not Path(binary).is_absolute():
        binary = str(Path(config.invocation_params.dir) / binary)
    process = MockAPNsProcess(binary, ca_file=ca_option).start()
    try:
        yield MockAPNsServer(process.push_url, process.ca_file, process.client, process)
    finally:
        code = process.stop()
        if code != 0:
            raise RuntimeError(f"mock-apns exited {code} at stop: {process.stderr_text().strip()}")


def _with_port(url: str, port: int) -> str:
    """`url` (scheme://host:port) with its port replaced: the gateway is on the same host."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}:{port}"


def _gateway_name(node: pytest.Item) -> str:
    """A listener name from the test's name: letters, digits, `-`, `_`, `.`, at most 64."""
    return (re.sub(r"[^A-Za-z0-9._-]+", "-", node.name).strip("-") or "test")[:64]


@pytest.fixture
def mock_apns(mock_apns_server: MockAPNsServer, request: pytest.FixtureRequest):
    """This test's view of the session's MockAPNs; see the module's doc comment."""
    if request.node.get_closest_marker(DEFAULT_GATEWAY) is not None:
        yield MockAPNsFixture(mock_apns_server, mock_apns_server.client.last_seq())
        return
    client = mock_apns_server.client
    gateway = client.create_gateway(name=_gateway_name(request.node),
                                    ttl_seconds=request.config.getoption("--mock-apns-gateway-ttl"))
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
    message (in the call phase, so it reports as the test's failure)."""
    result = yield
    fixture = getattr(item, "funcargs", {}).get("mock_apns")
    if isinstance(fixture, MockAPNsFixture) and item.get_closest_marker(NO_TEARDOWN_CHECK) is None:
        answer = fixture.teardown_check()
        if not answer.get("ok"):
            raise AssertionError(f"MockAPNs teardown check: {answer.get('message', answer)}")
    return result
