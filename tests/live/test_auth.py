"""Provider authentication over real TLS: provider tokens (JWT ES256), client certificates, the
connection-level rejections (GOAWAY, docs/field-cases.md C2), the token lifecycle (docs/field-cases.md C8, C9), the
apple-observed stream profile on token connections, and `mock-apns send` with each credential.

docs/apns-behaviour.md §2, §4, §5, §6, §9; fixtures in fixtures/auth (README.md there names each key and
certificate). Tokens are minted with `mock-apns jwt` (and PyJWT for interop), single pushes go
through curl, same-connection sequences and frame-level checks through hyper-h2.
"""

from __future__ import annotations

import base64
import datetime
import json
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import jwt as pyjwt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from livelib import (
    CA_PEM,
    FLAG_ACK,
    FRAME_GOAWAY,
    FRAME_SETTINGS,
    REPO_ROOT,
    SERVER_KEY,
    SERVER_PEM,
    TOPIC,
    apns_headers,
    binary_path,
    h2_client_for,
    parse_settings,
)

AUTH = REPO_ROOT / "fixtures" / "auth"
KEYS = AUTH / "keys.json"
CLIENT_CA = AUTH / "client-ca.pem"
UNLISTED_KEY = AUTH / "unlisted" / "AuthKey_UNLISTED01.p8"
TEAM = "TEAM000001"
OTHER_TEAM = "TEAM000002"
CERT_SUBJECT = "O=MockAPNs TEST ONLY,UID=com.example.app,CN=Apple Push Services: com.example.app"
MULTI_TOPICS = ["com.example.app", "com.example.app.complication", "com.example.app.voip"]
BODY = b'{"aps":{"alert":"auth"}}'
MAX_CONCURRENT_STREAMS = 3
NO_ERROR = 0


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


def key_file(key_id: str) -> Path:
    return AUTH / f"AuthKey_{key_id}.p8"


def team_of(key_id: str) -> str:
    return OTHER_TEAM if key_id == "OTHERTEAM1" else TEAM


def mint(key_id: str, *, team: str | None = None, iat: int | None = None, key: Path | None = None) -> str:
    """A provider token from `mock-apns jwt` (kid key_id, iss team, iat now unless given)."""
    args = [str(binary_path()), "jwt", "--key", str(key or key_file(key_id)), "--key-id", key_id,
            "--team-id", team or team_of(key_id)]
    if iat is not None:
        args += ["--issued-at", str(int(iat))]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, f"mock-apns jwt failed: {proc.stderr}"
    token = proc.stdout.strip()
    assert token.count(".") == 2, token
    return token


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwt_parts(token: str):
    header, claims, signature = token.split(".")
    return json.loads(unb64url(header)), json.loads(unb64url(claims)), unb64url(signature)


def tampered(token: str) -> str:
    """The token with its claims replaced (iat one second earlier) and the signature kept."""
    header, claims, signature = token.split(".")
    decoded = json.loads(unb64url(claims))
    decoded["iat"] = decoded["iat"] - 1
    return ".".join([header, b64url(json.dumps(decoded, separators=(",", ":")).encode()), signature])


def bearer(token: str) -> str:
    return f"bearer {token}"


def push_headers(apns_id: str, authorization: str | None, topic: str | None = TOPIC, token: str | None = None):
    extra = [("apns-id", apns_id)]
    if authorization is not None:
        extra.append(("authorization", authorization))
    return apns_headers(token or tok(), topic=topic, extra=extra)


def curl_headers(apns_id: str, authorization: str | None, topic: str | None = TOPIC):
    headers = [("apns-push-type", "alert"), ("apns-id", apns_id)]
    if topic is not None:
        headers.append(("apns-topic", topic))
    if authorization is not None:
        headers.append(("authorization", authorization))
    return headers


def cert_args(name: str):
    return ["--cert", str(AUTH / f"{name}.pem"), "--key", str(AUTH / f"{name}-key.pem")]


def cert_pair(name: str):
    return (AUTH / f"{name}.pem", AUTH / f"{name}-key.pem")


def record_for(server, apns_id: str, timeout: float = 5.0):
    """The delivery record of apns_id (polled briefly: a GOAWAY may beat the record to the client)."""
    deadline = time.monotonic() + timeout
    while True:
        found = server.deliveries(apnsId=apns_id)["deliveries"]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, (apns_id, found)
            return found[0]
        time.sleep(0.05)


def send(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary_path()), "send", *args], capture_output=True, text=True, timeout=60)


# --------------------------------------------------------------------------------------------
# Servers, started once per module and per kind
# --------------------------------------------------------------------------------------------

SERVER_KINDS = {
    "strict": ("--auth", "strict", "--keys", str(KEYS)),
    "strict-production": ("--auth", "strict", "--keys", str(KEYS), "--environment", "production"),
    "strict-clock+4000": ("--auth", "strict", "--keys", str(KEYS), "--clock-offset", "4000"),
    "permissive": ("--keys", str(KEYS)),
    "mtls-sandbox": ("--auth", "strict", "--keys", str(KEYS), "--client-ca", str(CLIENT_CA)),
    "mtls-production": ("--auth", "strict", "--keys", str(KEYS), "--client-ca", str(CLIENT_CA),
                        "--environment", "production"),
    "observed": ("--auth", "strict", "--keys", str(KEYS), "--client-ca", str(CLIENT_CA),
                 "--stream-profile", "apple-observed"),
}


@pytest.fixture(scope="module")
def servers(module_factory):
    """servers(kind): a running mock-apns of that kind (repository server certificate), shared by the module."""
    started = {}

    def get(kind: str):
        if kind not in started:
            started[kind] = module_factory(*SERVER_KINDS[kind])  # --tls-cert/--tls-key tls/server*.pem
        server = started[kind]
        assert server.alive(), f"mock-apns ({kind}) died: {server.stderr_text()}"
        return server

    return get


# --------------------------------------------------------------------------------------------
# 1. Every auth-related rejection reason
# --------------------------------------------------------------------------------------------


@dataclass
class Push:
    authorization: object = None  # None: no header; a str; or a callable returning the value
    topic: str = TOPIC

    def value(self):
        return self.authorization() if callable(self.authorization) else self.authorization


def now() -> int:
    return int(time.time())


def valid(key_id: str, topic: str = TOPIC, **kw) -> Push:
    return Push(lambda: bearer(mint(key_id, **kw)), topic)


@dataclass
class Row:
    id: str
    server: str
    pushes: list  # every push before the last must get 200, on the same connection
    status: int
    reason: str
    key_id: str | None = None  # identity.keyId expected in the record of the last push
    verdict: str | None = None  # a fragment of identity.verdict


REJECTIONS = [
    Row("missing-token", "strict", [Push(None)], 403, "MissingProviderToken", verdict="no provider token"),
    Row("empty-authorization", "strict", [Push("")], 403, "MissingProviderToken", verdict="no provider token"),
    Row("bare-bearer", "strict", [Push("bearer")], 403, "MissingProviderToken", verdict="no provider token"),
    Row("garbage-token", "strict", [Push("bearer not-a-jwt")], 403, "InvalidProviderToken", verdict="malformed"),
    Row("three-garbage-parts", "strict", [Push("bearer aaa.bbb.ccc")], 403, "InvalidProviderToken",
        verdict="malformed"),
    Row("signed-by-unlisted-key-claiming-TEAMUNI001", "strict",
        [Push(lambda: bearer(mint("TEAMUNI001", key=UNLISTED_KEY)))], 403, "InvalidProviderToken",
        key_id="TEAMUNI001", verdict="bad signature"),
    Row("tampered-claims", "strict", [Push(lambda: bearer(tampered(mint("TEAMUNI001"))))], 403,
        "InvalidProviderToken", key_id="TEAMUNI001", verdict="bad signature"),
    Row("unknown-key-strict", "strict", [Push(lambda: bearer(mint("UNLISTED01", key=UNLISTED_KEY)))], 403,
        "InvalidProviderToken", key_id="UNLISTED01", verdict="unknown key"),
    Row("iss-not-the-keys-team", "strict", [valid("TEAMUNI001", team=OTHER_TEAM)], 403, "InvalidProviderToken",
        key_id="TEAMUNI001"),
    Row("iat-120s-in-the-future", "strict", [Push(lambda: bearer(mint("TEAMUNI001", iat=now() + 120)))], 403,
        "InvalidProviderToken", key_id="TEAMUNI001", verdict="in the future"),
    Row("topic-outside-topic-key-scope", "strict", [valid("TOPICA0001", topic="com.example.other")], 403,
        "InvalidProviderToken", key_id="TOPICA0001", verdict="outside"),
    Row("other-team-on-bound-connection", "strict", [valid("TEAMUNI001"), valid("OTHERTEAM1")], 403,
        "InvalidProviderToken", key_id="OTHERTEAM1", verdict="connection's team"),
    Row("iat-3700s-old", "strict", [Push(lambda: bearer(mint("TEAMUNI001", iat=now() - 3700)))], 403,
        "ExpiredProviderToken", key_id="TEAMUNI001", verdict="old"),
    Row("fresh-token-clock-offset-4000", "strict-clock+4000", [valid("TEAMUNI001")], 403, "ExpiredProviderToken",
        key_id="TEAMUNI001", verdict="old"),
    Row("topic-key-then-unrelated-topic-key", "strict",
        [valid("TOPICA0001"), valid("TOPICC0001", topic="com.example.third")], 403, "UnrelatedKeyIdInToken",
        key_id="TOPICC0001", verdict="unrelated"),
    Row("team-key-then-topic-key", "strict", [valid("TEAMUNI001"), valid("TOPICA0001")], 403,
        "UnrelatedKeyIdInToken", key_id="TOPICA0001", verdict="unrelated"),
    Row("topic-key-then-team-key", "strict", [valid("TOPICA0001"), valid("TEAMUNI001")], 403,
        "UnrelatedKeyIdInToken", key_id="TEAMUNI001", verdict="unrelated"),
    Row("sandbox-key-on-production", "strict-production", [valid("TEAMSBX001")], 403,
        "BadEnvironmentKeyIdInToken", key_id="TEAMSBX001", verdict="not valid for production"),
    Row("production-key-on-sandbox", "strict", [valid("TEAMPRD001")], 403, "BadEnvironmentKeyIdInToken",
        key_id="TEAMPRD001", verdict="not valid for sandbox"),
    Row("new-token-right-after-first", "strict",
        [Push(lambda: bearer(mint("TEAMUNI001", iat=now()))), Push(lambda: bearer(mint("TEAMUNI001", iat=now() - 5)))],
        429, "TooManyProviderTokenUpdates", key_id="TEAMUNI001", verdict="new token"),
    Row("related-key-token-right-after-first", "strict",
        [valid("TOPICA0001"), valid("TOPICB0001")], 429, "TooManyProviderTokenUpdates", key_id="TOPICB0001"),
]


@pytest.mark.parametrize("row", REJECTIONS, ids=[r.id for r in REJECTIONS])
def test_auth_rejection_reasons(servers, row: Row):
    server = servers(row.server)
    ids = [str(uuid.uuid4()).upper() for _ in row.pushes]
    if len(row.pushes) == 1:
        resp = server.push(tok(), headers=curl_headers(ids[0], row.pushes[0].value(), row.pushes[0].topic), body=BODY)
        status, body, content_type = resp.status, resp.body, resp.header("content-type")
        assert resp.header("apns-id") == ids[0]
    else:
        client = h2_client_for(server.listener)
        try:
            for i, push in enumerate(row.pushes):
                r = client.request(push_headers(ids[i], push.value(), push.topic), BODY)
                if i < len(row.pushes) - 1:
                    assert r.status == 200, (i, r.status, r.body)
            status, body, content_type = r.status, r.body, r.header("content-type")
        finally:
            client.close()
    assert (status, json.loads(body)) == (row.status, {"reason": row.reason}), body
    assert content_type == "application/json"

    record = record_for(server, ids[-1])
    assert (record["status"], record["reason"]) == (row.status, row.reason)
    identity = record["identity"]
    assert identity["kind"] == "token", identity
    assert identity["verdict"].startswith("rejected"), identity
    if row.verdict:
        assert row.verdict in identity["verdict"], identity
    if row.key_id:
        assert identity["keyId"] == row.key_id, identity
    for earlier in ids[:-1]:
        assert record_for(server, earlier)["status"] == 200


def test_token_lifecycle_controls(servers):
    """The neighbours of C8/C9 that must pass: iat 3500 s old, 30 s ahead, a future-offset server."""
    strict = servers("strict")
    for iat in (now() - 3500, now() + 30):
        resp = strict.push(tok(), headers=curl_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001", iat=iat))),
                           body=BODY)
        assert resp.status == 200, (iat, resp.body)
    # --clock-offset 4000: a token issued 4000 s "from now" is fresh to that server (the offset is applied).
    shifted = servers("strict-clock+4000")
    resp = shifted.push(tok(), headers=curl_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001", iat=now() + 4000))),
                        body=BODY)
    assert resp.status == 200, resp.body


def test_clock_moves_between_identical_pushes_on_one_connection(server_factory):
    """PUT /v1/clock between pushes that repeat each other byte for byte on one connection: each
    is checked at the clock of its own arrival (token age 1 hour, 60 s of future skew, the
    20-minute rule counted from when the connection started using its token), as the first push
    of a connection would be, not answered from the previous push."""
    server = server_factory("--auth", "strict", "--keys", str(KEYS))
    token = tok()
    first, second = bearer(mint("TEAMUNI001")), bearer(mint("TEAMUNI001", iat=now() - 1))
    client = h2_client_for(server.listener)

    def push(authorization):
        r = client.request(apns_headers(token, extra=[("authorization", authorization)]), BODY)
        return (r.status, r.json()["reason"] if r.body else None)

    def clock(offset):
        assert server.put("/v1/clock", {"offsetSeconds": offset}).status == 200

    try:
        answers = [push(first), push(first)]
        clock(3700)
        answers += [push(first), push(first)]
        clock(-120)
        answers += [push(first), push(first)]
        clock(0)
        answers += [push(first), push(first)]
        clock(1300)  # 20 minutes after the first token went into use: a new one is welcome
        answers += [push(second), push(second)]
        clock(0)  # ...but back at 0 that token went into use 1300 s from now: changing again is too soon
        answers += [push(second), push(first), push(first)]
    finally:
        client.close()
        clock(0)
    ok, expired, future, too_soon = (200, None), (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"), \
        (429, "TooManyProviderTokenUpdates")
    expected = [ok, ok, expired, expired, future, future, ok, ok, ok, ok, ok, too_soon, too_soon]
    assert answers == expected
    records = server.deliveries(token=token, limit=100)["deliveries"]
    assert [(d["status"], d["reason"]) for d in records] == expected
    assert [d["identity"]["verdict"].split(":")[0] for d in records] == \
        ["rejected" if status != 200 else "verified" for status, _ in expected]


def test_accepted_token_record(servers):
    server = servers("strict")
    iat = now()
    token = mint("TEAMUNI001", iat=iat)
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, bearer(token)), body=BODY)
    assert resp.status == 200 and resp.body == b"", resp.body
    record = record_for(server, apns_id)
    assert record["providerToken"] == {"header": {"alg": "ES256", "kid": "TEAMUNI001"},
                                       "claims": {"iss": TEAM, "iat": iat}}, record["providerToken"]
    identity = record["identity"]
    assert identity["kind"] == "token"
    assert (identity["keyId"], identity["teamId"], identity["issuedAt"]) == ("TEAMUNI001", TEAM, iat)
    assert identity["verdict"] == "verified"
    assert identity["subject"] is None
    assert "signature" not in json.dumps(record["providerToken"])


def test_c8_same_token_reused_and_related_keys_on_one_connection(servers):
    """C8: the same token is reused freely; a different one within 20 min is 429 and changes nothing:
    the first token goes on working. Related topic keys may share the connection (A3)."""
    server = servers("strict")
    first = bearer(mint("TOPICA0001", iat=now()))
    second = bearer(mint("TOPICA0001", iat=now() - 7))
    client = h2_client_for(server.listener)
    try:
        statuses = []
        for authorization in (first, first, first, second, first):
            r = client.request(push_headers(str(uuid.uuid4()), authorization), BODY)
            statuses.append((r.status, r.json()["reason"] if r.body else None))
        assert statuses == [(200, None)] * 3 + [(429, "TooManyProviderTokenUpdates"), (200, None)], statuses
    finally:
        client.close()
    # A related key (TOPICB0001) is accepted as a connection's first key too, for its own topic.
    resp = server.push(tok(), headers=curl_headers(str(uuid.uuid4()), bearer(mint("TOPICB0001")), "com.example.other"),
                       body=BODY)
    assert resp.status == 200, resp.body


def test_rejected_first_push_binds_nothing(servers):
    """A rejected push does not bind the connection: after OTHERTEAM1 is refused for its
    iat, a TEAMUNI001 token is the connection's first accepted one."""
    server = servers("strict")
    client = h2_client_for(server.listener)
    try:
        r = client.request(push_headers(str(uuid.uuid4()), bearer(mint("OTHERTEAM1", iat=now() - 3700))), BODY)
        assert (r.status, r.json()) == (403, {"reason": "ExpiredProviderToken"})
        r = client.request(push_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001"))), BODY)
        assert r.status == 200, r.body
    finally:
        client.close()



def unsigned_token(kid: str, iss: str = TEAM, iat: int | None = None) -> str:
    """A JWT with these exact header and claims texts (JSON-escaped, so any code points survive)
    and a signature no key made: refused in strict mode whatever its kid names."""
    header = b64url(json.dumps({"alg": "ES256", "kid": kid}).encode())
    claims = b64url(json.dumps({"iss": iss, "iat": now() if iat is None else iat}).encode())
    return f"{header}.{claims}.{b64url(b'not a signature')}"


def test_rejected_tokens_differing_only_in_equivalent_text_keep_their_own_identity(servers):
    """Tokens whose kid or iss differ from the previous token's only in canonically equivalent
    text (é precomposed or decomposed, K or the Kelvin sign) are other tokens: each record names
    the kid and iss its push carried, as a fresh connection records them, not the previous push's."""
    server = servers("strict")
    tokens = [("UNLISTED\u00e9", TEAM), ("UNLISTEDe\u0301", TEAM),        # kid: é composed, decomposed
              ("UNLISTED0K", TEAM), ("UNLISTED0\u212a", TEAM),            # kid: K, Kelvin sign
              ("UNLISTED0K", "TEAM00000K"), ("UNLISTED0K", "TEAM00000\u212a")]  # iss: K, Kelvin sign
    ids = [str(uuid.uuid4()).upper() for _ in tokens]
    client = h2_client_for(server.listener)
    try:
        for apns_id, (kid, iss) in zip(ids, tokens):
            r = client.request(push_headers(apns_id, bearer(unsigned_token(kid, iss))), BODY)
            assert (r.status, r.json()) == (403, {"reason": "InvalidProviderToken"}), (kid, r.body)
    finally:
        client.close()
    recorded = [(record_for(server, i)["identity"]["keyId"], record_for(server, i)["identity"]["teamId"]) for i in ids]
    assert [(ascii(k), ascii(t)) for k, t in recorded] == [(ascii(k), ascii(t)) for k, t in tokens]

# --------------------------------------------------------------------------------------------
# 2. Permissive mode (the default)
# --------------------------------------------------------------------------------------------


def test_permissive_accepts_a_push_without_token(servers):
    server = servers("permissive")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, None), body=BODY)
    assert resp.status == 200, resp.body
    record = record_for(server, apns_id)
    assert record["identity"]["kind"] == "none"
    assert record["identity"]["verdict"] == "no-token"
    assert record["providerToken"] is None


def test_permissive_accepts_and_flags_an_unknown_key(servers):
    server = servers("permissive")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, bearer(mint("UNLISTED01", key=UNLISTED_KEY))), body=BODY)
    assert resp.status == 200, resp.body
    identity = record_for(server, apns_id)["identity"]
    assert identity["kind"] == "token"
    assert identity["verdict"] == "unknown-key-accepted"
    assert (identity["keyId"], identity["teamId"]) == ("UNLISTED01", TEAM)


@pytest.mark.parametrize(
    "authorization, reason",
    [
        (lambda: bearer(mint("TEAMUNI001", key=UNLISTED_KEY)), "InvalidProviderToken"),
        (lambda: bearer(tampered(mint("TEAMUNI001"))), "InvalidProviderToken"),
        (lambda: bearer(mint("TEAMUNI001", iat=now() - 3700)), "ExpiredProviderToken"),
        (lambda: bearer(mint("UNLISTED01", key=UNLISTED_KEY, iat=now() - 3700)), "ExpiredProviderToken"),
        (lambda: bearer(mint("UNLISTED01", key=UNLISTED_KEY, iat=now() + 600)), "InvalidProviderToken"),
        (lambda: "bearer not-a-jwt", "InvalidProviderToken"),
    ],
    ids=["bad-signature-configured-key", "tampered", "expired", "expired-unknown-key", "future-unknown-key",
         "garbage"],
)
def test_permissive_rejects_a_bad_token(servers, authorization, reason):
    server = servers("permissive")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, authorization()), body=BODY)
    assert (resp.status, resp.json()) == (403, {"reason": reason})
    record = record_for(server, apns_id)
    assert (record["status"], record["reason"]) == (403, reason)
    assert record["identity"]["verdict"].startswith("rejected")


# --------------------------------------------------------------------------------------------
# 3. PyJWT interop: JWS raw r||s and DER signatures
# --------------------------------------------------------------------------------------------


def pyjwt_token() -> str:
    token = pyjwt.encode({"iss": TEAM, "iat": now()}, key_file("TEAMUNI001").read_text(), algorithm="ES256",
                         headers={"kid": "TEAMUNI001"})
    return token if isinstance(token, str) else token.decode()


def der_variant(token: str) -> str:
    header, claims, signature = token.split(".")
    raw = unb64url(signature)
    assert len(raw) == 64, len(raw)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    assert der[0] == 0x30 and 68 <= len(der) <= 72, der.hex()
    return ".".join([header, claims, b64url(der)])


def test_pyjwt_token_is_accepted_in_strict_mode(servers):
    server = servers("strict")
    token = pyjwt_token()
    header, claims, signature = jwt_parts(token)
    assert header["alg"] == "ES256" and len(signature) == 64
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, bearer(token)), body=BODY)
    assert resp.status == 200, resp.body
    record = record_for(server, apns_id)
    assert record["identity"]["verdict"] == "verified"
    assert record["providerToken"]["header"]["kid"] == "TEAMUNI001"
    assert record["providerToken"]["claims"] == {"iss": TEAM, "iat": claims["iat"]}


def test_der_encoded_signature_verifies(servers):
    server = servers("strict")
    token = der_variant(pyjwt_token())
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, bearer(token)), body=BODY)
    assert resp.status == 200, resp.body
    assert record_for(server, apns_id)["identity"]["verdict"] == "verified"


def test_der_signature_from_another_key_is_rejected(servers):
    """DER is verified, not merely parsed: a DER signature by the unlisted key claiming TEAMUNI001 fails."""
    server = servers("strict")
    forged = pyjwt.encode({"iss": TEAM, "iat": now()}, UNLISTED_KEY.read_text(), algorithm="ES256",
                          headers={"kid": "TEAMUNI001"})
    resp = server.push(tok(), headers=curl_headers(str(uuid.uuid4()), bearer(der_variant(forged))), body=BODY)
    assert (resp.status, resp.json()) == (403, {"reason": "InvalidProviderToken"})


# --------------------------------------------------------------------------------------------
# 4. Client certificates (curl)
# --------------------------------------------------------------------------------------------


def test_single_topic_certificate_without_topic(servers):
    server = servers("mtls-sandbox")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, None, topic=None), body=BODY,
                       curl_args=cert_args("client-sandbox-single"))
    assert resp.status == 200, resp.body
    record = record_for(server, apns_id)
    assert record["topic"] == "com.example.app"  # the certificate's UID
    identity = record["identity"]
    assert identity["kind"] == "certificate"
    assert identity["subject"] == CERT_SUBJECT
    assert identity["topics"] == ["com.example.app"]
    assert identity["keyId"] is None and identity["teamId"] is None
    assert identity["verdict"] == "authorized"
    assert record["providerToken"] is None


@pytest.mark.parametrize("name", ["client-universal-single", "client-noenv-single"])
def test_universal_and_no_environment_certificates_on_both_environments(servers, name):
    for kind in ("mtls-sandbox", "mtls-production"):
        server = servers(kind)
        resp = server.push(tok(), headers=curl_headers(str(uuid.uuid4()), None, topic=None), body=BODY,
                           curl_args=cert_args(name))
        assert resp.status == 200, (kind, resp.body)


def test_multi_topic_certificate_without_topic_is_missing_topic(servers):
    server = servers("mtls-sandbox")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, None, topic=None), body=BODY,
                       curl_args=cert_args("client-sandbox-multi"))
    assert (resp.status, resp.json()) == (400, {"reason": "MissingTopic"})
    identity = record_for(server, apns_id)["identity"]
    assert identity["kind"] == "certificate"
    assert identity["topics"] == MULTI_TOPICS


@pytest.mark.parametrize("topic, push_type", [("com.example.app.voip", "voip"),
                                              ("com.example.app.complication", "complication")])
def test_multi_topic_certificate_covers_its_topics(servers, topic, push_type):
    server = servers("mtls-sandbox")
    headers = [("apns-topic", topic), ("apns-push-type", push_type)]
    resp = server.push(tok(), headers=headers, body=BODY, curl_args=cert_args("client-sandbox-multi"))
    assert resp.status == 200, resp.body


@pytest.mark.parametrize("name", ["client-sandbox-single", "client-sandbox-multi"])
def test_topic_outside_the_certificate_is_topic_disallowed(servers, name):
    server = servers("mtls-sandbox")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, None, topic="com.example.other"), body=BODY,
                       curl_args=cert_args(name))
    assert (resp.status, resp.json()) == (400, {"reason": "TopicDisallowed"})
    record = record_for(server, apns_id)
    assert (record["status"], record["reason"], record["topic"]) == (400, "TopicDisallowed", "com.example.other")
    assert record["identity"]["kind"] == "certificate"


def test_certificate_connection_ignores_the_authorization_header(servers):
    """A trusted certificate authenticates; a garbage token beside it is not looked at (A1, A10)."""
    server = servers("mtls-sandbox")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, "bearer not-a-jwt"), body=BODY,
                       curl_args=cert_args("client-sandbox-single"))
    assert resp.status == 200, resp.body
    assert record_for(server, apns_id)["identity"]["kind"] == "certificate"


def test_mtls_listener_without_certificate_or_token_is_missing_provider_token(servers):
    server = servers("mtls-sandbox")
    apns_id = str(uuid.uuid4()).upper()
    resp = server.push(tok(), headers=curl_headers(apns_id, None), body=BODY)
    assert (resp.status, resp.json()) == (403, {"reason": "MissingProviderToken"})
    assert record_for(server, apns_id)["reason"] == "MissingProviderToken"
    # and a token alone still works on the mutual-TLS listener
    resp = server.push(tok(), headers=curl_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001"))), body=BODY)
    assert resp.status == 200, resp.body


# --------------------------------------------------------------------------------------------
# 5. C2: connection-level certificate rejection at frame level
# --------------------------------------------------------------------------------------------


def rogue_client_cert(directory: Path):
    """A certificate that looks exactly like client-universal-single but is signed by another CA."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Rogue CA (MockAPNs tests)")])
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)
    end = start + datetime.timedelta(days=30)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, "Apple Push Services: com.example.app"),
        x509.NameAttribute(NameOID.USER_ID, "com.example.app"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "MockAPNs TEST ONLY"),
    ])
    null = b"\x05\x00"
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.840.113635.100.6.3.1"), null), False)
        .add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.840.113635.100.6.3.2"), null), False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_path, key_path = directory / "rogue.pem", directory / "rogue-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def expect_goaway_close(server, client_cert, reason: str, *, listener=None):
    """Push once over a connection presenting client_cert: expect GOAWAY(0, NO_ERROR, {"reason":...}),
    then the close; the record carries the reason and no status (the stream got no answer)."""
    client = h2_client_for(listener or server.listener, client_cert=client_cert)
    apns_id = str(uuid.uuid4()).upper()
    try:
        sid = client.start_request(push_headers(apns_id, None), BODY)
        client.pump(lambda: client.goaway is not None, timeout=10)
        goaways = [f for f in client.frames if f.type == FRAME_GOAWAY]
        first = goaways[0]
        last_stream_id = int.from_bytes(first.payload[0:4], "big") & 0x7FFFFFFF
        error_code = int.from_bytes(first.payload[4:8], "big")
        debug = first.payload[8:]
        assert (last_stream_id, error_code, debug) == (0, NO_ERROR, json.dumps({"reason": reason},
                                                                               separators=(",", ":")).encode())
        assert client.goaway.error_code == NO_ERROR and client.goaway.last_stream_id == 0
        assert client.goaway.additional_data == b'{"reason":"%s"}' % reason.encode()
        # then the server closes the connection (a second bare GOAWAY is allowed before that)
        client.pump(lambda: client.closed, timeout=10)
        for extra in [f for f in client.frames if f.type == FRAME_GOAWAY][1:]:
            assert int.from_bytes(extra.payload[0:8], "big") == 0, extra  # last-stream-id 0, NO_ERROR
        # the push's stream was never answered
        assert client.responses[sid].status is None, client.responses[sid]
    finally:
        client.close()
    record = record_for(server, apns_id)
    assert (record["status"], record["reason"]) == (None, reason)  # answered by GOAWAY, not on the stream
    # the GOAWAY's last-stream-id 0 leaves the stream above it: a correct sender retries it elsewhere
    assert record["unanswered"] == "above-last-stream-id", record
    assert record["identity"]["kind"] == "certificate"
    assert record["identity"]["verdict"].startswith("rejected")
    return record


@pytest.mark.parametrize(
    "kind, name",
    [("mtls-sandbox", "client-production-single"), ("mtls-sandbox", "client-production-multi"),
     ("mtls-production", "client-sandbox-single"), ("mtls-production", "client-sandbox-multi")],
)
def test_c2_wrong_environment_certificate_goaway(servers, kind, name):
    server = servers(kind)
    record = expect_goaway_close(server, cert_pair(name), "BadCertificateEnvironment")
    assert record["identity"]["subject"] == CERT_SUBJECT


def test_c2_goaway_comes_after_headers_before_data(servers):
    """C2: GOAWAY right after the first HEADERS, before any DATA is read: the request's body never comes."""
    server = servers("mtls-sandbox")
    client = h2_client_for(server.listener, client_cert=cert_pair("client-production-single"))
    try:
        client.conn.send_headers(client.conn.get_next_available_stream_id(), push_headers(str(uuid.uuid4()), None),
                                 end_stream=False)  # HEADERS only; the DATA is never sent
        client._flush()
        client.pump(lambda: client.goaway is not None, timeout=5)
        assert client.goaway.additional_data == b'{"reason":"BadCertificateEnvironment"}'
        assert (client.goaway.last_stream_id, client.goaway.error_code) == (0, NO_ERROR)
        client.pump(lambda: client.closed, timeout=10)
    finally:
        client.close()


def test_expired_certificate_goaway_bad_certificate(servers):
    expect_goaway_close(servers("mtls-sandbox"), cert_pair("client-expired"), "BadCertificate")


def test_server_certificate_as_client_certificate_is_bad_certificate(servers):
    """tls/server.pem is signed by tls/ca.pem, not by the client CA (and is not for clientAuth)."""
    expect_goaway_close(servers("mtls-sandbox"), (SERVER_PEM, SERVER_KEY), "BadCertificate")


def test_certificate_from_another_ca_is_bad_certificate(servers, tmp_path):
    record = expect_goaway_close(servers("mtls-sandbox"), rogue_client_cert(tmp_path), "BadCertificate")
    assert record["identity"]["subject"] == CERT_SUBJECT


def test_good_certificate_is_not_closed_and_serves_many_pushes(servers):
    """The counterpart of C2: a sandbox certificate on sandbox answers pushes and no GOAWAY comes."""
    server = servers("mtls-sandbox")
    client = h2_client_for(server.listener, client_cert=cert_pair("client-sandbox-single"))
    try:
        for _ in range(3):
            r = client.request(apns_headers(tok(), topic=None), BODY)
            assert r.status == 200, r.body
        client.ping()
        assert client.goaway is None and not client.closed
    finally:
        client.close()


# --------------------------------------------------------------------------------------------
# 6. apple-observed stream profile
# --------------------------------------------------------------------------------------------


def server_settings_frames(client):
    return [parse_settings(f.payload) for f in client.frames if f.type == FRAME_SETTINGS and not f.flags & FLAG_ACK]


def test_apple_observed_token_connection_starts_at_one_stream(servers):
    server = servers("observed")
    client = h2_client_for(server.listener)
    try:
        client.wait_for_settings()
        assert dict(client.first_server_settings()).get(MAX_CONCURRENT_STREAMS) == 1, client.first_server_settings()
        r = client.request(push_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001"))), BODY)
        assert r.status == 200, r.body
        client.pump(lambda: len(server_settings_frames(client)) >= 2, timeout=5)
        frames = server_settings_frames(client)
        assert dict(frames[1]) == {MAX_CONCURRENT_STREAMS: 1000}, frames
        assert client.conn.remote_settings.max_concurrent_streams == 1000
        # a rejected push (429: another token at once) drops it to 1 again
        r = client.request(push_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001", iat=now() - 9))), BODY)
        assert (r.status, r.json()) == (429, {"reason": "TooManyProviderTokenUpdates"})
        client.pump(lambda: len(server_settings_frames(client)) >= 3, timeout=5)
        assert dict(server_settings_frames(client)[2]) == {MAX_CONCURRENT_STREAMS: 1}
    finally:
        client.close()


def test_apple_observed_stays_at_one_until_a_push_is_accepted(servers):
    server = servers("observed")
    client = h2_client_for(server.listener)
    try:
        r = client.request(push_headers(str(uuid.uuid4()), None), BODY)
        assert (r.status, r.json()) == (403, {"reason": "MissingProviderToken"})
        client.ping()
        assert [dict(s).get(MAX_CONCURRENT_STREAMS) for s in server_settings_frames(client)] == [1], \
            server_settings_frames(client)
        r = client.request(push_headers(str(uuid.uuid4()), bearer(mint("TEAMUNI001"))), BODY)
        assert r.status == 200
        client.pump(lambda: len(server_settings_frames(client)) >= 2, timeout=5)
        assert dict(server_settings_frames(client)[1]) == {MAX_CONCURRENT_STREAMS: 1000}
    finally:
        client.close()


def test_apple_observed_certificate_connection_starts_at_full_limit(servers):
    """Only token connections start at 1 (docs/apns-behaviour.md §9)."""
    server = servers("observed")
    client = h2_client_for(server.listener, client_cert=cert_pair("client-sandbox-single"))
    try:
        client.wait_for_settings()
        assert dict(client.first_server_settings()).get(MAX_CONCURRENT_STREAMS) == 1000
        r = client.request(apns_headers(tok(), topic=None), BODY)
        assert r.status == 200, r.body
    finally:
        client.close()


# --------------------------------------------------------------------------------------------
# 7. mock-apns send with each credential kind, against a strict listener
# --------------------------------------------------------------------------------------------


def send_to(server, *credentials: str, topic: str | None = TOPIC):
    args = ["--url", f"https://localhost:{server.port}", "--cacert", str(CA_PEM), "--device-token", tok(),
            "--push-type", "alert"]
    if topic:
        args += ["--topic", topic]
    return send(*args, *credentials, '{"aps":{"alert":"send"}}')


def sent_record(server, proc):
    apns_id = next(line.split(": ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("apns-id: "))
    return record_for(server, apns_id)


def test_send_signs_with_key(servers):
    server = servers("mtls-sandbox")
    proc = send_to(server, "--key", str(key_file("TEAMUNI001")), "--key-id", "TEAMUNI001", "--team-id", TEAM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "status 200" in proc.stdout.splitlines()
    identity = sent_record(server, proc)["identity"]
    assert (identity["kind"], identity["keyId"], identity["teamId"], identity["verdict"]) == \
        ("token", "TEAMUNI001", TEAM, "verified")
    assert abs(identity["issuedAt"] - time.time()) < 60


def test_send_with_client_certificate(servers):
    server = servers("mtls-sandbox")
    proc = send_to(server, "--cert", str(AUTH / "client-sandbox-single.pem"),
                   "--cert-key", str(AUTH / "client-sandbox-single-key.pem"), topic=None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "status 200" in proc.stdout.splitlines()
    record = sent_record(server, proc)
    assert record["identity"]["kind"] == "certificate"
    assert record["topic"] == "com.example.app"


def test_send_with_authorization_header(servers):
    server = servers("mtls-sandbox")
    proc = send_to(server, "--authorization", bearer(mint("TOPICB0001")))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "status 200" in proc.stdout.splitlines()
    assert sent_record(server, proc)["identity"]["keyId"] == "TOPICB0001"


def test_send_without_credentials_is_missing_provider_token(servers):
    server = servers("mtls-sandbox")
    proc = send_to(server)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "status 403" in lines, proc.stdout
    assert "reason: MissingProviderToken" in lines, proc.stdout


def test_send_wrong_environment_certificate_reports_the_goaway(servers):
    server = servers("mtls-sandbox")
    proc = send_to(server, "--cert", str(AUTH / "client-production-single.pem"),
                   "--cert-key", str(AUTH / "client-production-single-key.pem"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BadCertificateEnvironment" in proc.stdout + proc.stderr


@pytest.mark.parametrize("iat", [1e300, -1e300, "9" * 400, 1.5e19])
def test_absurd_iat_is_rejected_without_harm(servers, iat):
    """An iat no clock can hold (found by fuzzing: it used to crash the server) is a plain 403."""
    import base64, json as _json
    def b64(obj):
        return base64.urlsafe_b64encode(_json.dumps(obj).encode()).rstrip(b"=").decode()
    token = f'{b64({"alg": "ES256", "kid": "NOSUCHKEY1"})}.{b64({"iss": "TEAM000001", "iat": iat})}.c2ln'
    server = servers("permissive")
    resp = server.push(tok(), headers=curl_headers(str(uuid.uuid4()).upper(), f"bearer {token}"), body=BODY)
    assert resp.status == 403
    assert resp.json()["reason"] in ("ExpiredProviderToken", "InvalidProviderToken")
    assert server.alive()
    assert server.push(tok(), headers=curl_headers(str(uuid.uuid4()).upper(), None), body=BODY).status == 200
