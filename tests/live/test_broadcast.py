"""Channel management and broadcast sends over real TLS on the provider listener (issue 15,
docs/broadcast.md): one test per reason a request can cause, the accepted rows, node-apn 7.1's
request shapes and APNSwift 234d745's older path-parameter form (served: docs/broadcast.md §3).

Requests go out with hyper-h2 (livelib.H2Client), exactly as the senders shape them."""

from __future__ import annotations

import base64
import json
import subprocess
import time
import urllib.parse
import uuid

import pytest

from livelib import CA_PEM, LOWER_UUID, binary_path, h2_client_for
from test_auth import CLIENT_CA, KEYS, bearer, cert_pair, mint

BUNDLE = "com.example.app"
CHANNELS = f"/1/apps/{BUNDLE}/channels"
ALL_CHANNELS = f"/1/apps/{BUNDLE}/all-channels"
BROADCAST = f"/4/broadcasts/apps/{BUNDLE}"
CREATE_BODY = b'{"message-storage-policy":1,"push-type":"LiveActivity"}'
UPDATE = json.dumps(
    {"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"score": 1}}},
    separators=(",", ":"),
).encode()
DISABLED = "com.example.nobroadcast"
FULL = "com.example.full"
LIMIT = 3
CONFIG = {"broadcast": {"disabledBundleIds": [DISABLED]}}


def headers(method: str, path: str, *extra, authority: str = "localhost"):
    return [(":method", method), (":scheme", "https"), (":authority", authority), (":path", path), *extra]


class Sender:
    """One HTTP/2 connection to a listener; `request` answers (status, headers dict, body)."""

    def __init__(self, listener, **kw):
        self.client = h2_client_for(listener, **kw)

    def request(self, method, path, *extra, body: bytes | None = None):
        response = self.client.request(headers(method, path, *extra), body, timeout=10)
        assert response.done, response
        return response

    def create(self, policy=1, bundle=BUNDLE, *extra):
        body = json.dumps({"message-storage-policy": policy, "push-type": "LiveActivity"}).encode()
        response = self.request("POST", f"/1/apps/{bundle}/channels", *extra, body=body)
        assert response.status == 201, (response.status, response.body)
        return response.header("apns-channel-id")

    def broadcast(self, channel, *extra, body: bytes | None = UPDATE, push_type: str | None = "liveactivity"):
        fields = [("apns-channel-id", channel)] if channel is not None else []
        if push_type is not None:
            fields.append(("apns-push-type", push_type))
        return self.request("POST", BROADCAST, *fields, *extra, body=body)

    def close(self):
        self.client.close()


def reason_of(response):
    assert response.header("content-type") == "application/json", response.headers
    return response.json()["reason"]


@pytest.fixture(scope="module")
def gateway(module_factory):
    return module_factory(config=CONFIG)


@pytest.fixture
def sender(gateway):
    s = Sender(gateway.listener)
    yield s
    s.close()


@pytest.fixture(scope="module")
def limited(module_factory):
    return module_factory(config={"broadcast": {"channelLimit": LIMIT}})


@pytest.fixture(scope="module")
def strict(module_factory):
    return module_factory("--auth", "strict", "--keys", str(KEYS), "--client-ca", str(CLIENT_CA))


# ------------------------------------------------------------------------------------------
# Accepted rows
# ------------------------------------------------------------------------------------------


def test_create_read_list_delete_and_broadcast(sender):
    request_id = str(uuid.uuid4())
    created = sender.request("POST", CHANNELS, ("apns-request-id", request_id), body=CREATE_BODY)
    assert created.status == 201
    assert created.header("apns-request-id") == request_id
    channel = created.header("apns-channel-id")
    assert base64.b64decode(channel, validate=True)
    assert created.body == b""

    read = sender.request("GET", CHANNELS, ("apns-channel-id", channel))
    assert read.status == 200
    assert read.json() == {"message-storage-policy": 1, "push-type": "LiveActivity"}
    assert LOWER_UUID.match(read.header("apns-request-id")), read.headers  # generated: lowercase

    listed = sender.request("GET", ALL_CHANNELS)
    assert listed.status == 200
    assert channel in listed.json()["channels"]

    sent = sender.broadcast(channel, ("apns-priority", "10"), ("apns-expiration", str(int(time.time()) + 3600)))
    assert sent.status == 200, sent.body
    assert LOWER_UUID.match(sent.header("apns-request-id"))

    deleted = sender.request("DELETE", CHANNELS, ("apns-channel-id", channel))
    assert deleted.status == 204
    assert deleted.body == b""
    assert reason_of(sender.request("GET", CHANNELS, ("apns-channel-id", channel))) == "ChannelNotRegistered"


def test_broadcast_takes_every_casing_priority_1_and_the_apns_id_header(sender):
    channel = sender.create(policy=0)
    for push_type in ("liveactivity", "LiveActivity", "Liveactivity"):
        assert sender.broadcast(channel, ("apns-expiration", "0"), push_type=push_type).status == 200
    assert sender.broadcast(channel, ("apns-priority", "1")).status == 200
    request_id = str(uuid.uuid4())
    answered = sender.broadcast(channel, ("apns-id", request_id))  # Apple's token sample
    assert (answered.status, answered.header("apns-request-id")) == (200, request_id)


def test_a_start_event_is_accepted_as_a_lint(sender):
    channel = sender.create()
    start = b'{"aps":{"timestamp":1,"event":"start","content-state":{}}}'
    assert sender.broadcast(channel, body=start).status == 200


def test_device_pushes_still_work_beside_broadcasts(sender):
    response = sender.request(
        "POST", "/3/device/" + uuid.uuid4().hex * 2, ("apns-topic", BUNDLE), ("apns-push-type", "alert"),
        body=b'{"aps":{"alert":"hi"}}')
    assert response.status == 200


# ------------------------------------------------------------------------------------------
# node-apn 7.1 and APNSwift shapes
# ------------------------------------------------------------------------------------------


def test_node_apn_7_1_request_shapes(sender):
    """String policy "1", lowercase push type, apns-priority 10 on channel calls, bodies on GET and DELETE."""
    body = b'{"message-storage-policy":"1","push-type":"liveactivity"}'
    created = sender.request("POST", CHANNELS, ("apns-priority", "10"), body=body)
    assert created.status == 201, created.body
    channel = created.header("apns-channel-id")
    read = sender.request("GET", CHANNELS, ("apns-priority", "10"), ("apns-channel-id", channel), body=body)
    assert read.status == 200
    assert read.json()["message-storage-policy"] == 1
    assert sender.request("GET", ALL_CHANNELS, ("apns-priority", "10"), body=body).status == 200
    sent = sender.broadcast(channel, ("apns-priority", "10"), ("apns-expiration", "0"))
    assert sent.status == 200
    deleted = sender.request("DELETE", CHANNELS, ("apns-priority", "10"), ("apns-channel-id", channel), body=body)
    assert deleted.status == 204


def test_apnswift_older_path_parameter_form(sender):
    """APNSwift 234d745: create without push-type, GET/DELETE /channels/{id} (percent-encoded)."""
    created = sender.request("POST", CHANNELS, ("content-type", "application/json"),
                             body=b'{"message-storage-policy":0}')
    assert created.status == 201
    channel = created.header("apns-channel-id")
    encoded = channel.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    assert sender.request("GET", f"{CHANNELS}/{encoded}").status == 200
    assert sender.request("DELETE", f"{CHANNELS}/{encoded}").status == 204


APNSWIFT_HEADERS = (("content-type", "application/json"), ("user-agent", "APNS/swift-nio"))


def test_apnswift_path_parameter_form_exactly_as_sent(gateway, sender):
    """APNSwift's older form exactly (docs/broadcast.md §3, "Requests"): its two default headers, a
    lowercase apns-request-id, a create body without push-type, then GET and DELETE with the channel ID
    as the last path segment, where only `/` is percent-encoded (`%2F`: base64 IDs hold `/`, and a raw
    one would split the segment) and `+` and `=` go as they are. A raw `/` there is 404 BadPath."""
    for _ in range(60):  # an ID holds a `/` with odds about 0.29; 60 tries miss with odds below 1e-8
        created = sender.request("POST", CHANNELS, *APNSWIFT_HEADERS,
                                 ("apns-request-id", str(uuid.uuid4()).lower()), body=b'{"message-storage-policy":0}')
        assert created.status == 201, created.body
        channel = created.header("apns-channel-id")
        if "/" in channel:
            break
    assert "/" in channel, channel
    segment = channel.replace("/", "%2F")
    raw = sender.request("GET", f"{CHANNELS}/{channel}", *APNSWIFT_HEADERS)
    assert (raw.status, reason_of(raw)) == (404, "BadPath")
    request_id = str(uuid.uuid4()).lower()
    read = sender.request("GET", f"{CHANNELS}/{segment}", *APNSWIFT_HEADERS, ("apns-request-id", request_id))
    assert (read.status, read.header("apns-request-id")) == (200, request_id), read.body
    assert read.json() == {"message-storage-policy": 0, "push-type": "LiveActivity"}
    deleted = sender.request("DELETE", f"{CHANNELS}/{segment}", *APNSWIFT_HEADERS)
    assert (deleted.status, deleted.body) == (204, b"")
    gone = sender.request("GET", f"{CHANNELS}/{segment}", *APNSWIFT_HEADERS)
    assert (gone.status, reason_of(gone)) == (400, "ChannelNotRegistered")
    # The records name the decoded channel ID; the channelId filter also selects the create.
    records = gateway.deliveries(channelId=channel)["deliveries"]
    assert [(r["method"], r["status"]) for r in records] == [("POST", 201), ("GET", 200), ("DELETE", 204),
                                                             ("GET", 400)]
    assert {r["channelId"] for r in records} == {channel}


# ------------------------------------------------------------------------------------------
# One test per reason (permissive listener: the non-credential reasons)
# ------------------------------------------------------------------------------------------


def test_bad_path(sender):
    response = sender.request("GET", f"/1/apps/{BUNDLE}/nothing")
    assert (response.status, reason_of(response)) == (404, "BadPath")


def test_method_not_allowed(sender):
    response = sender.request("PUT", CHANNELS)
    assert (response.status, reason_of(response)) == (405, "MethodNotAllowed")


def test_topic_disallowed(sender):
    response = sender.request("GET", f"/1/apps/{BUNDLE}.push-type.liveactivity/all-channels")
    assert (response.status, reason_of(response)) == (400, "TopicDisallowed")


def test_feature_not_enabled(sender):
    response = sender.request("POST", f"/1/apps/{DISABLED}/channels", body=CREATE_BODY)
    assert (response.status, reason_of(response)) == (400, "FeatureNotEnabled")


def test_missing_channel_id(sender):
    response = sender.request("GET", CHANNELS)
    assert (response.status, reason_of(response)) == (400, "MissingChannelId")
    assert reason_of(sender.broadcast(None)) == "MissingChannelId"


def test_bad_channel_id(sender):
    response = sender.request("DELETE", CHANNELS, ("apns-channel-id", "not base64!"))
    assert (response.status, reason_of(response)) == (400, "BadChannelId")
    assert reason_of(sender.request("GET", CHANNELS, ("apns-channel-id", "A" * 200))) == "BadChannelId"


def test_channel_not_registered(sender):
    response = sender.broadcast("dHN0LXNyY2gtY2hubA==")
    assert (response.status, reason_of(response)) == (400, "ChannelNotRegistered")


def test_bad_message_id(sender):
    channel = sender.create()
    response = sender.broadcast(channel, ("apns-request-id", "not-a-uuid"))
    assert (response.status, reason_of(response)) == (400, "BadMessageId")
    assert LOWER_UUID.match(response.header("apns-request-id"))


def test_missing_push_type(sender):
    response = sender.broadcast(sender.create(), push_type=None)
    assert (response.status, reason_of(response)) == (400, "MissingPushType")


def test_invalid_push_type(sender):
    response = sender.broadcast(sender.create(), push_type="alert")
    assert (response.status, reason_of(response)) == (400, "InvalidPushType")
    bad_create = sender.request("POST", CHANNELS, body=b'{"message-storage-policy":1,"push-type":"alert"}')
    assert reason_of(bad_create) == "InvalidPushType"


def test_bad_expiration_date(sender):
    unstored = sender.create(policy=0)
    response = sender.broadcast(unstored, ("apns-expiration", str(int(time.time()) + 60)))
    assert (response.status, reason_of(response)) == (400, "BadExpirationDate")
    assert reason_of(sender.broadcast(sender.create(), ("apns-expiration", "soon"))) == "BadExpirationDate"


def test_bad_priority(sender):
    response = sender.broadcast(sender.create(), ("apns-priority", "7"))
    assert (response.status, reason_of(response)) == (400, "BadPriority")


def test_payload_too_large(sender):
    body = json.dumps({"aps": {"timestamp": 1, "event": "end"}, "pad": "x" * 5100}).encode()
    assert len(body) > 5120
    response = sender.broadcast(sender.create(), body=body)
    assert (response.status, reason_of(response)) == (413, "PayloadTooLarge")


def test_a_create_body_over_16_kib_is_payload_too_large(sender):
    # valid JSON, padded past the 16 KiB the transport keeps: too large, not "unparsable"
    body = b'{"message-storage-policy":1,"push-type":"LiveActivity"' + b" " * 20_000 + b"}"
    response = sender.request("POST", CHANNELS, body=body)
    assert (response.status, reason_of(response)) == (413, "PayloadTooLarge")
    assert response.header("apns-channel-id") is None


def test_payload_empty(sender):
    response = sender.broadcast(sender.create(), body=None)
    assert (response.status, reason_of(response)) == (400, "PayloadEmpty")


def test_bad_request_payload(sender):
    response = sender.request("POST", CHANNELS, body=b"{not json")
    assert (response.status, reason_of(response)) == (400, "BadRequestPayload")
    assert reason_of(sender.broadcast(sender.create(), body=b"[1]")) == "BadRequestPayload"


def test_bad_request_params(sender):
    response = sender.request(
        "POST", CHANNELS, body=b'{"message-storage-policy":1,"push-type":"LiveActivity","colour":"red"}')
    assert (response.status, reason_of(response)) == (400, "BadRequestParams")
    policy_2 = sender.request("POST", CHANNELS, body=b'{"message-storage-policy":2,"push-type":"LiveActivity"}')
    assert reason_of(policy_2) == "BadRequestParams"


def test_cannot_create_channel_config(limited):
    sender = Sender(limited.listener)
    made = [sender.create(bundle=FULL) for _ in range(LIMIT)]
    response = sender.request("POST", f"/1/apps/{FULL}/channels", body=CREATE_BODY)
    assert (response.status, reason_of(response)) == (400, "CannotCreateChannelConfig")
    # a delete frees a place; the new ID is not the deleted one
    assert sender.request("DELETE", f"/1/apps/{FULL}/channels", ("apns-channel-id", made[0])).status == 204
    assert sender.create(bundle=FULL) not in made
    assert sender.create() is not None  # the limit is per app
    sender.close()


# ------------------------------------------------------------------------------------------
# Credentials (strict listener): the same checks as /3/device
# ------------------------------------------------------------------------------------------


def test_missing_provider_token(strict):
    s = Sender(strict.listener)
    try:
        response = s.request("GET", ALL_CHANNELS)
        assert (response.status, reason_of(response)) == (403, "MissingProviderToken")
    finally:
        s.close()


def test_invalid_provider_token(strict):
    s = Sender(strict.listener)
    try:
        response = s.request("GET", ALL_CHANNELS, ("authorization", "bearer not-a-jwt"))
        assert (response.status, reason_of(response)) == (403, "InvalidProviderToken")
    finally:
        s.close()


def test_expired_provider_token(strict):
    s = Sender(strict.listener)
    try:
        old = mint("TEAMSBX001", iat=int(time.time()) - 4000)
        response = s.request("GET", ALL_CHANNELS, ("authorization", bearer(old)))
        assert (response.status, reason_of(response)) == (403, "ExpiredProviderToken")
    finally:
        s.close()


def test_topic_mismatch_token(strict):
    """A key scoped to com.example.third does not cover com.example.app."""
    s = Sender(strict.listener)
    try:
        response = s.request("GET", ALL_CHANNELS, ("authorization", bearer(mint("TOPICC0001"))))
        assert (response.status, reason_of(response)) == (403, "TopicMismatch")
    finally:
        s.close()


def test_topic_mismatch_certificate(strict):
    s = Sender(strict.listener, client_cert=cert_pair("client-sandbox-single"))
    try:
        assert s.request("GET", ALL_CHANNELS).status == 200  # the certificate's own bundle ID
        response = s.request("GET", "/1/apps/com.example.other/all-channels")
        assert (response.status, reason_of(response)) == (403, "TopicMismatch")
    finally:
        s.close()


def test_token_accepted(strict):
    s = Sender(strict.listener)
    try:
        auth = ("authorization", bearer(mint("TEAMSBX001")))
        created = s.request("POST", CHANNELS, auth, body=CREATE_BODY)
        assert created.status == 201, created.body
        assert s.broadcast(created.header("apns-channel-id"), auth).status == 200
    finally:
        s.close()


@pytest.mark.parametrize("name, reason", [("client-production-single", "BadCertificateEnvironment"),
                                          ("client-expired", "BadCertificate")])
def test_rejected_certificate_ends_the_connection(strict, name, reason):
    client = h2_client_for(strict.listener, client_cert=cert_pair(name))
    try:
        sid = client.start_request(headers("GET", ALL_CHANNELS))
        client.pump(lambda: client.goaway is not None, timeout=10)
        assert client.goaway.additional_data == b'{"reason":"%s"}' % reason.encode()
        assert client.responses[sid].status is None
    finally:
        client.close()


def test_certificate_accepted_and_channels_are_per_environment(strict, gateway):
    """A channel made on one server's sandbox listener is unknown elsewhere (and in production)."""
    s = Sender(strict.listener, client_cert=cert_pair("client-sandbox-single"))
    try:
        channel = s.create()
        assert s.broadcast(channel).status == 200
    finally:
        s.close()
    other = Sender(gateway.listener)
    try:
        assert reason_of(other.broadcast(channel)) == "ChannelNotRegistered"
    finally:
        other.close()


# ------------------------------------------------------------------------------------------
# Records: kind, channelId, wait (docs/broadcast.md §4)
# ------------------------------------------------------------------------------------------


def test_channel_and_broadcast_requests_are_recorded(gateway, sender):
    request_id = str(uuid.uuid4())
    created = sender.request("POST", CHANNELS, ("apns-request-id", request_id), body=CREATE_BODY)
    channel = created.header("apns-channel-id")
    [create] = gateway.deliveries(kind="channel", apnsId=request_id)["deliveries"]
    # the create named no channel; its record carries the one it made (docs/broadcast.md §4)
    assert (create["kind"], create["status"], create["topic"], create["channelId"]) == (
        "channel", 201, BUNDLE, channel)
    assert gateway.get_json(f"/v1/deliveries/{create['seq']}")["channelId"] == channel
    # ... and the channelId filter selects it (with every later record of the channel, any kind)
    assert [r["seq"] for r in gateway.deliveries(channelId=channel)["deliveries"]] == [create["seq"]]
    assert [r["seq"] for r in gateway.deliveries(channelId=channel, kind="channel")["deliveries"]] == [create["seq"]]

    sent = sender.broadcast(channel, ("apns-priority", "5"))
    refused = sender.broadcast(channel, ("apns-priority", "7"))
    records = gateway.deliveries(kind="broadcast", channelId=channel)["deliveries"]
    assert [(r["status"], r["reason"]) for r in records] == [(200, None), (400, "BadPriority")]
    every = gateway.deliveries(channelId=channel)["deliveries"]
    assert [(r["kind"], r["status"]) for r in every] == [("channel", 201), ("broadcast", 200), ("broadcast", 400)]
    first = records[0]
    assert first["apnsId"] == sent.header("apns-request-id")
    assert (first["channelId"], first["pushType"], first["inferredPushType"], first["priority"]) == (
        channel, "liveactivity", "liveactivity", 5)
    assert first["payload"] == json.loads(UPDATE)
    assert refused.status == 400
    # device pushes are kind "push"
    assert all(r["kind"] == "push" for r in gateway.deliveries(kind="push")["deliveries"])
    bad = gateway.get("/v1/deliveries?kind=pushes")
    assert bad.status == 400


def test_wait_for_a_broadcast(gateway, sender):
    channel = sender.create()
    after = gateway.deliveries()["lastSeq"]
    sender.broadcast(channel)
    query = urllib.parse.urlencode(
        {"count": 1, "timeoutMs": 5000, "kind": "broadcast", "channelId": channel, "after": after})
    r = gateway.get(f"/v1/deliveries/wait?{query}")
    assert r.status == 200, r.body
    assert [d["channelId"] for d in r.json["deliveries"]] == [channel]


# ------------------------------------------------------------------------------------------
# Fault rules by kind and channel ID
# ------------------------------------------------------------------------------------------


def test_fault_rules_match_kind_and_channel_id(module_factory):
    server = module_factory()
    s = Sender(server.listener)
    try:
        channel = s.create()
        # every broadcast to this channel gets 503; a create gets 429 and makes no channel
        for rule in (
            {"id": "b503", "match": {"kind": "broadcast", "channelId": channel},
             "action": {"type": "respond", "status": 503}},
            {"id": "c429", "match": {"kind": "channel"}, "action": {"type": "respond", "reason": "TooManyRequests"},
             "lifetime": {"times": 1}},
        ):
            r = server.control("POST", "/v1/faults", rule)
            assert r.status == 201, r.body
        sent = s.broadcast(channel)
        assert (sent.status, reason_of(sent)) == (503, "ServiceUnavailable")
        assert sent.header("apns-request-id")
        before = s.request("GET", ALL_CHANNELS)  # the rule's one time goes here
        assert (before.status, reason_of(before)) == (429, "TooManyRequests")
        listed = s.request("GET", ALL_CHANNELS)
        assert listed.json()["channels"] == [channel]
        # a device push is not a broadcast: no rule takes it
        push = s.request("POST", "/3/device/" + uuid.uuid4().hex * 2, ("apns-topic", BUNDLE),
                         ("apns-push-type", "alert"), body=b'{"aps":{"alert":"hi"}}')
        assert push.status == 200
        [record] = server.deliveries(kind="broadcast")["deliveries"]
        assert (record["status"], record["fault"]["ruleId"]) == (503, "b503")
    finally:
        s.close()


def test_a_create_a_fault_answers_makes_no_channel(module_factory):
    server = module_factory()
    s = Sender(server.listener)
    try:
        r = server.control("POST", "/v1/faults", {"match": {"kind": "channel"},
                                                    "action": {"type": "respond", "reason": "TooManyRequests"}})
        assert r.status == 201, r.body
        created = s.request("POST", CHANNELS, body=CREATE_BODY)
        assert (created.status, reason_of(created)) == (429, "TooManyRequests")
        assert created.header("apns-channel-id") is None
        assert server.control("DELETE", "/v1/faults").status == 200
        assert s.request("GET", ALL_CHANNELS).json()["channels"] == []
    finally:
        s.close()


# ------------------------------------------------------------------------------------------
# Fan-out to subscribed virtual devices (docs/broadcast.md §5)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", [1, 0])
def test_a_broadcast_fans_out_to_three_subscribed_devices_one_offline(gateway, sender, policy):
    channel = sender.create(policy=policy)
    tokens = sorted(uuid.uuid4().hex * 2 for _ in range(3))
    for index, token in enumerate(tokens):
        body = {"environment": "sandbox", "topic": BUNDLE, "channels": [channel]}
        if index == 1:
            body["connectivity"] = "offline"
        r = gateway.control("PUT", f"/v1/devices/{token}", body)
        assert r.status == 201, r.body
    listed = gateway.get_json(f"/v1/channels?bundleId={BUNDLE}")["channels"]
    assert [c["subscribers"] for c in listed if c["id"] == channel] == [tokens]

    extra = [] if policy == 1 else [("apns-expiration", "0")]
    sent = sender.broadcast(channel, *extra)
    assert sent.status == 200, sent.body
    [record] = gateway.deliveries(kind="broadcast", channelId=channel)["deliveries"]
    assert record["fanOut"] == 3
    copies = record["fanOutDeliveries"]
    assert [c["deviceToken"] for c in copies] == tokens
    offline = "Stored - Device Offline" if policy == 1 else "Discarded - Expired"
    assert [c["lifecycleState"] for c in copies] == ["Delivered to Device", offline, "Delivered to Device"]
    assert len({c["notification"] for c in copies}) == 3  # each its own notification

    # the offline device comes online: policy 1 delivers the stored copy, policy 0 kept nothing
    r = gateway.control("PATCH", f"/v1/devices/{tokens[1]}", {"connectivity": "online"})
    assert r.status == 200, r.body
    again = gateway.get_json(f"/v1/deliveries/{record['seq']}")["fanOutDeliveries"][1]
    states = [event["state"] for event in again["lifecycle"]]
    if policy == 1:
        assert states == ["Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"]
    else:
        assert states == ["Received by APNs", "Discarded - Expired"]
    log = gateway.get_json("/v1/delivery-log/" + sent.header("apns-request-id"))["notifications"]
    assert [c["deviceToken"] for c in log[0]["fanOut"]] == tokens
    device = gateway.get_json(f"/v1/devices/{tokens[0]}")
    assert device["channels"] == [channel]
    assert copies[0]["notification"] in device["delivered"]

    # no subscriber: still recorded, fan-out 0
    lonely = sender.create(policy=policy)
    assert sender.broadcast(lonely, *extra).status == 200
    [alone] = gateway.deliveries(kind="broadcast", channelId=lonely)["deliveries"]
    assert alone["fanOut"] == 0
    for token in tokens:
        assert gateway.delete(f"/v1/devices/{token}").status == 200


def test_a_subscription_to_an_unknown_channel_is_refused(gateway):
    token = uuid.uuid4().hex * 2
    r = gateway.control("PUT", f"/v1/devices/{token}",
                        {"environment": "sandbox", "topic": BUNDLE, "channels": ["bm8tc3VjaC1jaGFubmVs"]})
    assert r.status == 404, r.body
    assert "channels[0]" in r.json["error"]


CONFIGURED = "Y29uZvvvvv/+AA=="  # holds "/", "+" and "=", as random IDs may


def test_channels_and_subscriptions_from_the_configuration_file(module_factory):
    """broadcast.channels are made at start with their IDs; devices[N].channels subscribe to them."""
    tokens = [uuid.uuid4().hex * 2 for _ in range(2)]
    server = module_factory(config={
        "broadcast": {"channels": [
            {"id": CONFIGURED, "bundleId": BUNDLE, "messageStoragePolicy": 0},
            {"id": "cHJvZHVjdGlvbg==", "bundleId": BUNDLE, "environment": "production"}]},
        "devices": [{"token": t, "topic": BUNDLE, "virtual": True, "channels": [CONFIGURED]} for t in tokens]})
    listed = {c["id"]: c for c in server.get_json("/v1/channels")["channels"]}
    assert listed[CONFIGURED]["subscribers"] == sorted(tokens)
    assert (listed[CONFIGURED]["messageStoragePolicy"], listed[CONFIGURED]["environment"]) == (0, "sandbox")
    assert listed["cHJvZHVjdGlvbg=="]["environment"] == "production"
    s = Sender(server.listener)
    try:
        read = s.request("GET", CHANNELS, ("apns-channel-id", CONFIGURED))
        assert read.json() == {"message-storage-policy": 0, "push-type": "LiveActivity"}
        assert CONFIGURED in s.request("GET", ALL_CHANNELS).json()["channels"]
        assert s.broadcast(CONFIGURED, ("apns-expiration", "0")).status == 200
        [record] = server.deliveries(kind="broadcast", channelId=CONFIGURED)["deliveries"]
        assert record["fanOut"] == 2
        assert [c["deviceToken"] for c in record["fanOutDeliveries"]] == sorted(tokens)
        gone = s.request("GET", CHANNELS, ("apns-channel-id", "cHJvZHVjdGlvbg=="))  # a production channel
        assert reason_of(gone) == "ChannelNotRegistered"
    finally:
        s.close()


@pytest.mark.parametrize("config, field", [
    ({"devices": [{"token": "ab" * 32, "topic": BUNDLE, "channels": [CONFIGURED]}]}, "devices[0].channels[0]: no channel"),
    ({"broadcast": {"channels": [{"id": CONFIGURED, "bundleId": BUNDLE}, {"id": "bad id", "bundleId": BUNDLE}]}},
     "broadcast.channels[1].id: expected standard padded base64"),
])
def test_a_bad_channel_in_the_configuration_file_is_refused_at_start(tmp_path, config, field):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    proc = subprocess.run([str(binary_path()), "--config", str(path), "--listen", "127.0.0.1:0", "--control", "off"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert field in proc.stderr, proc.stderr


def push_to_start(sender, token, channel):
    body = json.dumps({"aps": {"timestamp": int(time.time()), "event": "start", "content-state": {"score": 0},
                               "attributes-type": "Match", "attributes": {}, "input-push-channel": channel,
                               "alert": {"title": "Kick-off"}}}).encode()
    return sender.request("POST", f"/3/device/{token}", ("apns-topic", f"{BUNDLE}.push-type.liveactivity"),
                          ("apns-push-type", "liveactivity"), ("apns-priority", "10"), body=body)


def test_a_push_to_start_with_input_push_channel_subscribes_its_device(gateway, sender):
    token = uuid.uuid4().hex * 2
    r = gateway.control("PUT", f"/v1/devices/{token}", {"environment": "sandbox", "topic": BUNDLE, "virtual": True})
    assert r.status in (200, 201), r.body
    channel = sender.create(policy=1)
    started = push_to_start(sender, token, channel)
    assert started.status == 200, started.body
    assert gateway.get_json(f"/v1/devices/{token}")["channels"] == [channel]
    listed = gateway.get_json(f"/v1/channels?bundleId={BUNDLE}")["channels"]
    assert [c["subscribers"] for c in listed if c["id"] == channel] == [[token]]
    record = gateway.delivery_by_apns_id(started.header("apns-id"))
    assert not any("input-push-channel" in lint for lint in record["lints"]), record["lints"]
    assert sender.broadcast(channel).status == 200
    [sent] = gateway.deliveries(kind="broadcast", channelId=channel)["deliveries"]
    assert sent["fanOut"] == 1
    # a channel the app does not have: accepted, a lint, no subscription
    unknown = "bm8tc3VjaC1jaGFubmVs"
    refused = push_to_start(sender, token, unknown)
    assert refused.status == 200, refused.body
    lints = gateway.delivery_by_apns_id(refused.header("apns-id"))["lints"]
    assert any(f'input-push-channel "{unknown}" is no channel of {BUNDLE}' in lint for lint in lints), lints
    assert gateway.get_json(f"/v1/devices/{token}")["channels"] == [channel]
    assert gateway.delete(f"/v1/devices/{token}").status == 200


# ------------------------------------------------------------------------------------------
# Control API: channels on a test's behalf
# ------------------------------------------------------------------------------------------


def test_control_api_channels(gateway, sender):
    r = gateway.control("POST", "/v1/channels", {"bundleId": BUNDLE, "messageStoragePolicy": 0})
    assert r.status == 201, r.body
    channel = r.json["id"]
    assert sender.broadcast(channel, ("apns-expiration", "0")).status == 200  # the listeners' store
    made = sender.create()
    listed = gateway.get_json(f"/v1/channels?bundleId={BUNDLE}&environment=sandbox")["channels"]
    assert {channel, made} <= {c["id"] for c in listed}
    assert [c["messageStoragePolicy"] for c in listed if c["id"] == channel] == [0]
    gone = gateway.delete("/v1/channels/" + urllib.parse.quote(made, safe=""))
    assert gone.status == 200, gone.body
    assert reason_of(sender.request("GET", CHANNELS, ("apns-channel-id", made))) == "ChannelNotRegistered"


# ------------------------------------------------------------------------------------------
# mock-apns send: create, list, read, delete channels and broadcast
# ------------------------------------------------------------------------------------------


def test_mock_apns_send_channels_and_broadcast(gateway):
    def send(*args):
        proc = subprocess.run([str(binary_path()), "send", "--url", f"https://localhost:{gateway.port}",
                               "--cacert", str(CA_PEM), "--topic", BUNDLE, *args],
                              capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout.splitlines()

    rc, lines = send("--create-channel", "--storage-policy", "0")
    assert (rc, lines[0]) == (0, "status 201"), lines
    channel = next(line.split(": ", 1)[1] for line in lines if line.startswith("apns-channel-id: "))
    assert any(line.startswith("apns-request-id: ") for line in lines)
    rc, lines = send("--list-channels")
    assert rc == 0 and channel in "\n".join(lines), lines
    rc, lines = send("--read-channel", channel)
    assert rc == 0 and 'body: {"message-storage-policy":0,"push-type":"LiveActivity"}' in lines, lines
    rc, lines = send("--broadcast", channel, "--expiration", "0", UPDATE.decode())
    assert (rc, lines[0]) == (0, "status 200"), lines
    [record] = gateway.deliveries(kind="broadcast", channelId=channel)["deliveries"]
    assert record["payload"] == json.loads(UPDATE)
    rc, lines = send("--delete-channel", channel)
    assert (rc, lines[0]) == (0, "status 204"), lines
    rc, lines = send("--delete-channel", channel)
    assert (rc, lines[0], lines[-1]) == (1, "status 400", "reason: ChannelNotRegistered"), lines


# ------------------------------------------------------------------------------------------
# Apple's host names and channel-management ports (README "Broadcast push and channel management")
# ------------------------------------------------------------------------------------------

APPLE_HOSTS = [
    "api.push.apple.com", "api.sandbox.push.apple.com", "api-broadcast.push.apple.com",
    "api-broadcast.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com",
    "api-manage-broadcast.sandbox.push.apple.com",
]
# A loopback address of this test's own, so Apple's ports are free on it.
MANAGE_HOST = "127.0.0.57"


@pytest.mark.parametrize("host", APPLE_HOSTS)
def test_the_test_certificate_covers_apples_hosts(gateway, host):
    """TLS with the host name checked against tls/ca.pem, as a sender sent there by the hosts file does."""
    s = Sender(gateway.listener, server_hostname=host)
    try:
        response = s.client.request(headers("GET", ALL_CHANNELS, authority=host), None, timeout=10)
        assert response.status == 200, response
    finally:
        s.close()


def test_channel_management_listeners_at_apples_ports(module_factory):
    server = module_factory("--channel-management", MANAGE_HOST, expect_listeners=3)
    sandbox, production = server.listener_named("manage-sandbox"), server.listener_named("manage-production")
    assert (sandbox.host, sandbox.port, sandbox.environment) == (MANAGE_HOST, 2195, "sandbox")
    assert (production.host, production.port, production.environment) == (MANAGE_HOST, 2196, "production")
    manage = Sender(sandbox, server_hostname="api-manage-broadcast.sandbox.push.apple.com")
    other = Sender(production, server_hostname="api-manage-broadcast.push.apple.com")
    push = Sender(server.listener)  # the first listener, sandbox: broadcasts go there (node-apn)
    try:
        channel = manage.create(policy=0)
        read = other.request("GET", CHANNELS, ("apns-channel-id", channel))
        assert (read.status, reason_of(read)) == (400, "ChannelNotRegistered")  # per environment
        assert push.broadcast(channel, ("apns-expiration", "0")).status == 200
        made = other.create(policy=1)
        assert made in other.request("GET", ALL_CHANNELS).json()["channels"]
        records = server.deliveries(kind="channel", status=201)["deliveries"]
        assert [(r["listener"], r["environment"]) for r in records] == [
            ("manage-sandbox", "sandbox"), ("manage-production", "production")]
    finally:
        for s in (manage, other, push):
            s.close()


def test_a_port_collision_is_refused_at_start():
    proc = subprocess.run(
        [str(binary_path()), "--listen", "127.0.0.1:0", "--control", "off", "--channel-management", MANAGE_HOST,
         "--binary", f"{MANAGE_HOST}:2195"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert f"binary.listen: address {MANAGE_HOST}:2195 conflicts with listeners[1]" in proc.stderr, proc.stderr
    assert f"made listeners[1], manage-sandbox ({MANAGE_HOST}:2195)" in proc.stderr, proc.stderr
    assert "loopback address of its own" in proc.stderr, proc.stderr
