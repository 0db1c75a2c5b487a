"""Fixtures for the live MockAPNs suite.

Run from the repository root:
    pip install -r tests/live/requirements.txt
    MOCK_APNS_BIN=/path/to/mock-apns python3 -m pytest tests/live -q

MOCK_APNS_BIN defaults to .build/release/mock-apns (relative to the repository root).
"""

from __future__ import annotations

import shutil

import pytest

import livelib
from livelib import ServerFactory, binary_path

if livelib.H2_IMPORT_ERROR is not None:
    raise pytest.UsageError(
        "tests/live needs the PyPI package 'h2' (hyper-h2) for frame-level checks: "
        "pip install -r tests/live/requirements.txt "
        f"(import failed: {livelib.H2_IMPORT_ERROR})"
    )

for tool in ("curl", "nghttp", "h2load"):
    if shutil.which(tool) is None:
        raise pytest.UsageError(f"tests/live needs '{tool}' on PATH (Debian: curl, nghttp2-client)")

if not binary_path().is_file():
    raise pytest.UsageError(
        f"mock-apns binary not found at {binary_path()}; build it or set MOCK_APNS_BIN"
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "soak: the soak (test_soak_invariants.py): SOAK_SECONDS long, 25 s in make test, an hour in make soak")


@pytest.fixture
def server_factory(tmp_path):
    factory = ServerFactory(tmp_path)
    yield factory
    failures = factory.stop_all()
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory):
    """One default sandbox server (repository TLS certificate) shared by tests that only push."""
    factory = ServerFactory(tmp_path_factory.mktemp("shared"))
    server = factory()
    yield server
    failures = factory.stop_all()
    assert not failures, "\n".join(failures)


@pytest.fixture
def server(shared_server):
    """The shared server, checked to be alive before each test uses it."""
    assert shared_server.alive(), f"shared mock-apns died: {shared_server.stderr_text()}"
    return shared_server


@pytest.fixture(scope="module")
def module_factory(tmp_path_factory):
    """Servers shared by the tests of one module; stopped (SIGTERM, exit 0) after the module."""
    factory = ServerFactory(tmp_path_factory.mktemp("module"))
    yield factory
    failures = factory.stop_all()
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="session")
def plaintext_server(tmp_path_factory):
    """A cleartext (prior-knowledge HTTP/2) listener announcing MAX_CONCURRENT_STREAMS 50."""
    factory = ServerFactory(tmp_path_factory.mktemp("plaintext"))
    server = factory("--plaintext", "--max-concurrent-streams", "50", tls=False)
    assert server.listener.scheme == "http", server.stdout_lines
    yield server
    failures = factory.stop_all()
    assert not failures, "\n".join(failures)
