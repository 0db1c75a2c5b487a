"""Requests over real HTTP/2 connections: the README example, the reason table, docs/field-cases.md C10, C13, C16."""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest

from livelib import (
    LOWER_UUID,
    REPO_ROOT,
    TOPIC,
    UPPER_UUID,
    apns_headers,
    h2_client_for,
)

BASE = (("apns-topic", TOPIC), ("apns-push-type", "alert"))
ALERT = b'{"aps":{"alert":"hi"}}'


def with_headers(*extra, base=BASE):
    return tuple(base) + tuple(extra)


def fresh_token() -> str:
    """A unique, well-formed 64-character token so records can be found by token."""
    return uuid.uuid4().hex + uuid.uuid4().hex


# ------------------------------------------------------------------------------------------
# 1. README example
# ------------------------------------------------------------------------------------------


def test_readme_example_with_curl(server):
    token = fresh_token()
    assert server.delete("/v1/deliveries").status == 200
    cmd = [
        "curl", "-sS", "-i", "--http2", "--cacert", "tls/ca.pem",
        "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
        "-d", '{"aps":{"alert":"hi"}}',
        f"https://localhost:{server.port}/3/device/{token}",
    ]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, timeout=15)
    assert proc.returncode == 0, proc.stderr
    head, _, body = proc.stdout.decode().partition("\r\n\r\n")
    lines = head.split("\r\n")
    assert lines[0].strip() == "HTTP/2 200", lines
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    assert len(headers.get("apns-id", [])) == 1, headers
    apns_id = headers["apns-id"][0]
    assert UPPER_UUID.match(apns_id), f"generated apns-id should be an uppercase UUID: {apns_id!r}"
    assert LOWER_UUID.match(headers["apns-unique-id"][0]), headers
    assert "content-type" not in headers and "content-length" not in headers, headers
    assert body == ""

    listing = server.deliveries()
    assert len(listing["deliveries"]) == 1, listing
    record = listing["deliveries"][0]
    assert record["apnsId"] == apns_id
    assert record["deviceToken"] == token
    assert record["topic"] == "com.example.app"
    assert record["pushType"] == "alert"
    assert record["payload"] == {"aps": {"alert": "hi"}}
    assert record["status"] == 200 and record["reason"] is None
    assert record["uniqueId"] == headers["apns-unique-id"][0]
    assert record["environment"] == "sandbox"
    assert record["method"] == "POST" and record["path"] == f"/3/device/{token}"


# ------------------------------------------------------------------------------------------
# 2. Reason table: one row per reason a request alone can cause
# ------------------------------------------------------------------------------------------

IOS13_DESCRIPTION = "{length=32,bytes=0x3c5e8a1b2c3d4e5f60718293a4b5c6d7...0f1e2d3c4b5a6978a1f2}"
ANGLE_SPACES = "<3c5e8a1b 2c3d4e5f 60718293 a4b5c6d7 e8f90a1b 2c3d4e5f 60718293 a4b5a1f2>"


def pct(text: str) -> str:
    return "".join(c if c.isalnum() else "%{:02X}".format(ord(c)) for c in text)


REJECTED = [
    # id, push kwargs, status, reason
    ("BadCollapseId-65-ascii", dict(headers=with_headers(("apns-collapse-id", "c" * 65))), 400, "BadCollapseId"),
    ("BadCollapseId-66-utf8-bytes", dict(headers=with_headers(("apns-collapse-id", "é" * 33))), 400, "BadCollapseId"),
    ("BadDeviceToken-non-hex", dict(token="zz" * 32), 400, "BadDeviceToken"),
    ("BadDeviceToken-odd-length", dict(token="a" * 63), 400, "BadDeviceToken"),
    ("BadDeviceToken-ios13-description", dict(path="/3/device/" + pct(IOS13_DESCRIPTION)), 400, "BadDeviceToken"),
    ("BadDeviceToken-angle-brackets-spaces", dict(path="/3/device/" + pct(ANGLE_SPACES)), 400, "BadDeviceToken"),
    ("BadDeviceToken-202-chars", dict(token="ab" * 101), 400, "BadDeviceToken"),
    ("BadExpirationDate-float", dict(headers=with_headers(("apns-expiration", "1.5"))), 400, "BadExpirationDate"),
    ("BadExpirationDate-text", dict(headers=with_headers(("apns-expiration", "tomorrow"))), 400, "BadExpirationDate"),
    ("BadMessageId-text", dict(headers=with_headers(("apns-id", "not-a-uuid"))), 400, "BadMessageId"),
    ("BadMessageId-no-dashes", dict(headers=with_headers(("apns-id", uuid.uuid4().hex))), 400, "BadMessageId"),
    ("BadPriority-7", dict(headers=with_headers(("apns-priority", "7"))), 400, "BadPriority"),
    ("BadPriority-text", dict(headers=with_headers(("apns-priority", "high"))), 400, "BadPriority"),
    ("BadTopic-space", dict(headers=(("apns-topic", "com example"), ("apns-push-type", "alert"))), 400, "BadTopic"),
    ("BadTopic-empty", dict(headers=(("apns-topic", ""), ("apns-push-type", "alert"))), 400, "BadTopic"),
    ("DeviceTokenNotForTopic-voip-to-plain-topic",
     dict(headers=(("apns-topic", TOPIC), ("apns-push-type", "voip"))), 400, "DeviceTokenNotForTopic"),
    ("InvalidPushType-unknown", dict(headers=(("apns-topic", TOPIC), ("apns-push-type", "bogus"))), 400, "InvalidPushType"),
    ("InvalidPushType-alert-to-voip-topic",
     dict(headers=(("apns-topic", TOPIC + ".voip"), ("apns-push-type", "alert"))), 400, "InvalidPushType"),
    ("InvalidPushType-background-to-voip-topic",
     dict(headers=(("apns-topic", TOPIC + ".voip"), ("apns-push-type", "background"), ("apns-priority", "5")),
          body=b'{"aps":{"content-available":1}}'), 400, "InvalidPushType"),
    ("MissingDeviceToken", dict(path="/3/device/"), 400, "MissingDeviceToken"),
    ("MissingTopic", dict(headers=(("apns-push-type", "alert"),)), 400, "MissingTopic"),
    ("PayloadEmpty-zero-length", dict(body=b""), 400, "PayloadEmpty"),
    ("PayloadEmpty-invalid-json", dict(body=b'{"aps":'), 400, "PayloadEmpty"),
    ("PayloadEmpty-json-not-object", dict(body=b"[1,2]"), 400, "PayloadEmpty"),
    ("BadPath-devices", dict(path="/3/devices/x"), 404, "BadPath"),
    ("BadPath-foo", dict(path="/foo"), 404, "BadPath"),
    ("MethodNotAllowed-GET", dict(method="GET", body=None), 405, "MethodNotAllowed"),
    ("MethodNotAllowed-DELETE", dict(method="DELETE", body=None), 405, "MethodNotAllowed"),
    ("PayloadTooLarge-5000", dict(body=b'{"aps":{"alert":"' + b"x" * 4980 + b'"}}'), 413, "PayloadTooLarge"),
]


@pytest.mark.parametrize("kwargs,status,reason", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_rejection_reason(server, kwargs, status, reason):
    kwargs = dict(kwargs)
    kwargs.setdefault("token", fresh_token())
    resp = server.push(**kwargs)
    assert resp.status == status, (resp.status, resp.body)
    assert resp.headers.get("content-type") == ["application/json"], resp.headers
    apns_id = resp.header("apns-id")
    assert apns_id and UPPER_UUID.match(apns_id), resp.headers
    assert LOWER_UUID.match(resp.header("apns-unique-id") or ""), resp.headers
    assert json.loads(resp.body) == {"reason": reason}, resp.body
    assert resp.body == json.dumps({"reason": reason}, separators=(",", ":")).encode(), resp.body
    record = server.delivery_by_apns_id(apns_id)
    assert (record["status"], record["reason"]) == (status, reason), record


def test_duplicate_headers_over_h2(server):
    client = h2_client_for(server.listener)
    try:
        headers = apns_headers(fresh_token(), extra=[("apns-topic", TOPIC)])
        assert [n for n, _ in headers].count("apns-topic") == 2
        resp = client.request(headers, b'{"aps":{"alert":"dup"}}')
        assert resp.status == 400, resp
        assert resp.header("content-type") == "application/json"
        assert UPPER_UUID.match(resp.header("apns-id") or ""), resp.headers
        assert resp.json() == {"reason": "DuplicateHeaders"}
        # Two different duplicated headers, each with a value that alone would be valid.
        resp = client.request(
            apns_headers(fresh_token(), extra=[("apns-priority", "10"), ("apns-priority", "10")]), b"{}"
        )
        assert (resp.status, resp.json()) == (400, {"reason": "DuplicateHeaders"})
    finally:
        client.close()


ACCEPTED = [
    ("empty-object-body", dict(body=b"{}")),
    ("mdm-payload-without-aps",
     dict(headers=(("apns-topic", "com.apple.mgmt.External.4f9e3f7c"), ("apns-push-type", "mdm")), body=b'{"mdm":"x"}')),
    ("token-64-hex", dict(token="0123456789abcdef" * 4)),
    ("token-108-hex", dict(token=("0123456789abcdef" * 7)[:108])),
    ("token-160-hex", dict(token="fedcba9876543210" * 10)),
    ("token-uppercase-hex", dict(token="0123456789ABCDEF" * 4)),
    ("priority-1", dict(headers=with_headers(("apns-priority", "1")))),
    ("priority-5", dict(headers=with_headers(("apns-priority", "5")))),
    ("priority-10", dict(headers=with_headers(("apns-priority", "10")))),
    ("expiration-0", dict(headers=with_headers(("apns-expiration", "0")))),
    ("expiration-future", dict(headers=with_headers(("apns-expiration", "4102444800")))),
    ("collapse-id-64-utf8-bytes", dict(headers=with_headers(("apns-collapse-id", "é" * 32)))),
    ("voip-to-voip-topic", dict(headers=(("apns-topic", TOPIC + ".voip"), ("apns-push-type", "voip")))),
]


@pytest.mark.parametrize("kwargs", [r[1] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_accepted_request(server, kwargs):
    kwargs = dict(kwargs)
    token = kwargs.setdefault("token", fresh_token())
    resp = server.push(**kwargs)
    assert resp.status == 200, (resp.status, resp.body)
    assert resp.body == b""
    assert "content-type" not in resp.headers, resp.headers
    apns_id = resp.header("apns-id")
    assert apns_id and UPPER_UUID.match(apns_id), resp.headers
    record = server.delivery_by_apns_id(apns_id)
    assert record["status"] == 200 and record["reason"] is None, record
    assert record["deviceToken"] == token.lower(), record
    body = kwargs.get("body", b'{"aps":{"alert":"hi"}}')
    assert record["payload"] == json.loads(body)
    assert record["payloadBytes"] == len(body)


@pytest.mark.parametrize("sent", [str(uuid.uuid4()), str(uuid.uuid4()).upper()], ids=["lowercase", "uppercase"])
def test_apns_id_is_echoed_exactly(server, sent):
    resp = server.push(fresh_token(), headers=with_headers(("apns-id", sent)))
    assert resp.status == 200
    assert resp.headers["apns-id"] == [sent]
    assert server.delivery_by_apns_id(sent)["apnsId"] == sent
    # and on an error answer as well
    resp = server.push(fresh_token(), headers=with_headers(("apns-id", sent), ("apns-priority", "7")))
    assert (resp.status, resp.headers["apns-id"], resp.json()) == (400, [sent], {"reason": "BadPriority"})


def test_expiration_and_priority_recorded(server):
    token = fresh_token()
    resp = server.push(token, headers=with_headers(("apns-expiration", "0"), ("apns-priority", "5"),
                                                   ("apns-collapse-id", "grp")))
    assert resp.status == 200
    record = server.delivery_by_apns_id(resp.header("apns-id"))
    assert (record["expiration"], record["priority"], record["collapseId"]) == (0, 5, "grp")


# ------------------------------------------------------------------------------------------
# 4. C16 on the sandbox listener (production is in test_registry.py)
# ------------------------------------------------------------------------------------------


def test_c16_sandbox_answers_carry_apns_id_and_unique_id(server):
    resp = server.push(fresh_token())
    assert resp.status == 200
    assert UPPER_UUID.match(resp.header("apns-id") or "")
    unique = resp.header("apns-unique-id")
    assert unique and LOWER_UUID.match(unique), resp.headers
    record = server.delivery_by_apns_id(resp.header("apns-id"))
    assert record["uniqueId"] == unique
    second = server.push(fresh_token())
    assert second.header("apns-unique-id") != unique
    assert second.header("apns-id") != resp.header("apns-id")


# ------------------------------------------------------------------------------------------
# 5. C10: payload size counted in UTF-8 bytes
# ------------------------------------------------------------------------------------------


def utf8_payload(total_bytes: int) -> bytes:
    """{"aps":{"alert":"é€é€…"}} of exactly total_bytes UTF-8 bytes, mostly multi-byte characters."""
    prefix, suffix = '{"aps":{"alert":"', '"}}'
    room = total_bytes - len(prefix) - len(suffix)
    unit = "é€"  # 2 + 3 bytes
    fill = unit * (room // 5)
    rest = room - len(fill.encode())
    fill += "é" * (rest // 2) + "a" * (rest % 2)
    text = prefix + fill + suffix
    data = text.encode("utf-8")
    assert len(data) == total_bytes
    assert len(text) < total_bytes - 1000  # a server counting characters would get it wrong
    json.loads(data)
    return data


@pytest.mark.parametrize(
    "topic,push_type,size,status",
    [
        (TOPIC, "alert", 4096, 200),
        (TOPIC, "alert", 4097, 413),
        (TOPIC + ".voip", "voip", 5120, 200),
        (TOPIC + ".voip", "voip", 5121, 413),
    ],
    ids=["alert-4096", "alert-4097", "voip-5120", "voip-5121"],
)
def test_c10_payload_limit_in_utf8_bytes(server, topic, push_type, size, status):
    body = utf8_payload(size)
    sent_id = str(uuid.uuid4())
    resp = server.push(fresh_token(), headers=(("apns-topic", topic), ("apns-push-type", push_type),
                                               ("apns-id", sent_id)), body=body)
    assert resp.status == status, (resp.status, resp.body)
    assert resp.headers["apns-id"] == [sent_id]
    if status == 200:
        assert resp.body == b""
    else:
        assert resp.json() == {"reason": "PayloadTooLarge"}
    record = server.delivery_by_apns_id(sent_id)
    assert record["payloadBytes"] == size, record["payloadBytes"]
    assert record["status"] == status
    if status == 200:
        assert record["payload"] == json.loads(body)
