"""Who may use the control API (issue 19 section 1, README "Security"): the Host check against DNS
rebinding, the Origin and content-type checks against cross-site requests, CORS only for configured
origins, the bearer token, and the refusal to run open beyond loopback."""

from __future__ import annotations

import http.client
import json
import os
import subprocess

from livelib import REPO_ROOT, SERVER_KEY, SERVER_PEM, TOKEN, binary_path

FAULT = '{"action":{"type":"respond","reason":"ServiceUnavailable"}}'


def raw(server, method, path, *, headers=(), body=b"", host=None):
    """One request with exactly these headers (Host as given, or the control address): status,
    lowercase headers, JSON body (or None)."""
    address = server.control_url.removeprefix("http://")
    name, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(name, int(port), timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        own = address.replace("0.0.0.0:", "127.0.0.1:")  # a wildcard binding is reached on loopback
        connection.putheader("Host", host if host is not None else own)
        for key, value in headers:
            connection.putheader(key, value)
        if body or method in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body if body else None)
        response = connection.getresponse()
        data = response.read()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                json.loads(data) if data else None)
    finally:
        connection.close()


def curl(*args):
    proc = subprocess.run(["curl", "-s", "-w", "\n%{http_code}", *args], capture_output=True, text=True, timeout=10)
    body, _, status = proc.stdout.rpartition("\n")
    return int(status), body


def test_the_cross_origin_text_plain_fault_post_of_the_issue_is_refused(server_factory):
    server = server_factory()
    # The exact request of issue 19, as a web page's "simple" fetch sends it.
    status, body = curl("-X", "POST", "-H", "Origin: http://evil.example", "-H", "Content-Type: text/plain",
                        "--data", FAULT, server.control_url + "/v1/faults")
    assert status == 403, body
    assert "Origin" in json.loads(body)["error"], body
    # Without the Origin, a text/plain body is still refused (415), as is curl -d's form type.
    status, body = curl("-X", "POST", "-H", "Content-Type: text/plain", "--data", FAULT,
                        server.control_url + "/v1/faults")
    assert status == 415 and "application/json" in json.loads(body)["error"], body
    status, body = curl("-d", FAULT, server.control_url + "/v1/faults")
    assert status == 415 and "x-www-form-urlencoded" in json.loads(body)["error"], body
    # An HTML form's multipart body too.
    status, body = curl("-F", "a=b", server.control_url + "/v1/faults")
    assert status == 415, body
    assert server.get_json("/v1/faults")["faults"] == [], "no rule was created"
    assert server.push(TOKEN).status == 200, "and pushes are still served as before"

    # The API's own origin (the console), and no Origin at all (curl --json, test clients), work.
    own = server.control_url
    assert raw(server, "POST", "/v1/faults", headers=[("Origin", own), ("Content-Type", "application/json")],
               body=FAULT.encode())[0] == 201
    status, body = curl("--json", FAULT, server.control_url + "/v1/faults")
    assert status == 201, body
    assert len(server.get_json("/v1/faults")["faults"]) == 2
    # Every state-changing method is checked, an empty body with no content type is fine.
    for method, path in (("DELETE", "/v1/faults"), ("DELETE", "/v1/deliveries"), ("POST", "/v1/connections/close"),
                         ("PUT", "/v1/clock"), ("PATCH", f"/v1/devices/{TOKEN}")):
        status, headers, answer = raw(server, method, path, headers=[("Origin", "http://evil.example")])
        assert status == 403 and "Origin" in answer["error"], (method, path, status, answer)
        assert not any(k.startswith("access-control-") for k in headers), headers
    assert len(server.get_json("/v1/faults")["faults"]) == 2, "nothing was deleted"
    assert raw(server, "DELETE", "/v1/faults")[0] == 200
    assert server.get_json("/v1/faults")["faults"] == []


def test_a_rebinding_host_cannot_read_records(server_factory):
    server = server_factory("--control-allow-host", "MockBox")
    assert server.push(TOKEN).status == 200
    # The Host: evil.example read of the issue: a DNS-rebinding page's requests carry its name.
    status, headers, answer = raw(server, "GET", "/v1/deliveries", host="evil.example")
    assert status == 403 and "Host" in answer["error"], (status, answer)
    assert TOKEN not in json.dumps(answer)
    assert not any(k.startswith("access-control-") for k in headers), headers
    port = server.control_url.rsplit(":", 1)[1]
    for host in (f"evil.example:{port}", f"localhost.evil.example:{port}", "10.1.2.3", ""):
        status, _, answer = raw(server, "GET", "/v1/deliveries/wait?timeoutMs=0", host=host)
        assert status == 403, (host, status, answer)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", f"mockbox:{port}", "MockBox"):
        status, _, answer = raw(server, "GET", "/v1/deliveries", host=host)
        assert status == 200 and answer["deliveries"][0]["deviceToken"] == TOKEN, (host, status)
    # Writes from a foreign Host are refused before their Origin or body is looked at.
    status, _, answer = raw(server, "POST", "/v1/faults", host="evil.example",
                            headers=[("Content-Type", "application/json")], body=FAULT.encode())
    assert status == 403 and "Host" in answer["error"]
    assert server.get_json("/v1/faults")["faults"] == []


def test_configured_origins_get_cors_and_a_preflight_answer(server_factory):
    origin = "http://localhost:3000"
    server = server_factory("--control-allow-origin", origin, "--control-allow-origin", "https://console.example")
    status, headers, _ = raw(server, "OPTIONS", "/v1/faults", headers=[
        ("Origin", origin), ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", "content-type")])
    assert status == 204, status
    assert headers["access-control-allow-origin"] == origin
    assert "POST" in headers["access-control-allow-methods"]
    assert "content-type" in headers["access-control-allow-headers"]
    status, headers, answer = raw(server, "POST", "/v1/faults", headers=[
        ("Origin", origin), ("Content-Type", "application/json")], body=FAULT.encode())
    assert status == 201 and headers["access-control-allow-origin"] == origin, (status, headers, answer)
    status, headers, answer = raw(server, "GET", "/v1/faults", headers=[("Origin", origin)])
    assert status == 200 and headers["access-control-allow-origin"] == origin
    # Another origin gets neither CORS headers nor a state change.
    status, headers, _ = raw(server, "DELETE", "/v1/faults", headers=[("Origin", "http://evil.example")])
    assert status == 403 and "access-control-allow-origin" not in headers
    status, headers, _ = raw(server, "OPTIONS", "/v1/faults", headers=[
        ("Origin", "http://evil.example"), ("Access-Control-Request-Method", "DELETE")])
    assert status != 204 and "access-control-allow-origin" not in headers
    assert len(server.get_json("/v1/faults")["faults"]) == 1

    # Without configured origins, no answer carries a CORS header, a preflight included.
    plain = server_factory()
    for method, path in (("OPTIONS", "/v1/faults"), ("GET", "/v1/health"), ("GET", "/v1/faults")):
        status, headers, _ = raw(plain, method, path, headers=[
            ("Origin", origin), ("Access-Control-Request-Method", "POST")])
        assert not any(k.startswith("access-control-") for k in headers), (method, path, status, headers)


def test_a_bearer_token_is_required_when_configured_and_never_shown(server_factory, monkeypatch):
    secret = "s3cret-Control-Token"
    server = server_factory("--control-token", secret, "--log-level", "debug")
    for authorization in (None, "Bearer wrong", f"Bearer {secret}x", f"Basic {secret}", secret):
        headers = [("Authorization", authorization)] if authorization else []
        status, answer_headers, answer = raw(server, "GET", "/v1/deliveries", headers=headers)
        assert status == 401, (authorization, status)
        assert answer_headers["www-authenticate"].startswith("Bearer"), answer_headers
        assert "token" in answer["error"] and secret not in json.dumps(answer)
    status, _, answer = raw(server, "POST", "/v1/faults", headers=[("Content-Type", "application/json")],
                            body=FAULT.encode())
    assert status == 401
    assert raw(server, "GET", "/v1/health", headers=[("Authorization", f"Bearer {secret}")])[0] == 200
    # `mock-apns export-apns` reads the control API with the environment's token.
    assert server.push(TOKEN).status == 200
    export = [str(binary_path()), "export-apns", "1", "--control", server.control_url]
    refused = subprocess.run(export, capture_output=True, text=True, timeout=10,
                             env={k: v for k, v in os.environ.items() if k != "MOCK_APNS_CONTROL_TOKEN"})
    assert refused.returncode != 0 and "401" in refused.stderr, (refused.returncode, refused.stderr)
    exported = subprocess.run(export, capture_output=True, text=True, timeout=10,
                              env={**os.environ, "MOCK_APNS_CONTROL_TOKEN": secret})
    assert exported.returncode == 0 and "Simulator Target Bundle" in exported.stdout, exported.stderr
    status, body = curl("-H", f"Authorization: Bearer {secret}", "--json", FAULT, server.control_url + "/v1/faults")
    assert status == 201, body
    status, body = curl("-H", f"Authorization: Bearer {secret}", server.control_url + "/v1/faults")
    assert status == 200 and len(json.loads(body)["faults"]) == 1
    assert server.get("/v1/health").status == 401, "the suite's own client has no token"
    assert server.push(TOKEN).status == 503, "the rule added with the token is live"
    # The environment's token, for a server whose command line should not show it.
    monkeypatch.setenv("MOCK_APNS_CONTROL_TOKEN", "from-the-environment")
    from_env = server_factory()
    monkeypatch.delenv("MOCK_APNS_CONTROL_TOKEN")
    assert raw(from_env, "GET", "/v1/health")[0] == 401
    assert raw(from_env, "GET", "/v1/health", headers=[("Authorization", "Bearer from-the-environment")])[0] == 200
    for running in (server, from_env):
        running.stop()
        logs = "\n".join(running.stdout_lines) + running.stderr_text()
        assert secret not in logs and "from-the-environment" not in logs, logs


def run(*args, timeout=10):
    try:
        return subprocess.run([str(binary_path()), *args], cwd=REPO_ROOT, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"mock-apns {args} did not exit within {timeout}s") from exc


def test_beyond_loopback_start_refuses_without_a_token(server_factory):
    proc = run("--listen", "127.0.0.1:0", "--control", "0.0.0.0:0", "--tls-cert", str(SERVER_PEM),
               "--tls-key", str(SERVER_KEY))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "--control-token" in proc.stderr and "--control-insecure-no-token" in proc.stderr, proc.stderr
    assert "control API on" not in proc.stdout
    proc = run("--control", "0.0.0.0:0", "--control-token", "a b")
    assert proc.returncode == 2 and "a b" not in proc.stderr, proc.stderr
    # Told it may run open, it starts; given a token, it starts and requires it.
    open_server = server_factory("--control-insecure-no-token", control="0.0.0.0:0")
    assert raw(open_server, "GET", "/v1/health")[0] == 200
    guarded = server_factory("--control-token", "t0ken", control="0.0.0.0:0")
    assert raw(guarded, "GET", "/v1/health")[0] == 401
    assert raw(guarded, "GET", "/v1/health", headers=[("Authorization", "Bearer t0ken")])[0] == 200
