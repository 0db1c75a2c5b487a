"""Virtual devices on the real binary (docs/device-model.md §7, issue 14): what happens after APNs
says 200. Registered with curl-free urllib calls to the control API, pushed with curl."""

from __future__ import annotations

import json
import subprocess
import time
import uuid

import pytest

from livelib import REPO_ROOT, TOPIC, binary_path

ALERT = (("apns-topic", TOPIC), ("apns-push-type", "alert"))
BACKGROUND = (("apns-topic", TOPIC), ("apns-push-type", "background"), ("apns-priority", "5"))
CONFIGURED = "c0ffee00" * 8  # a virtual device from the configuration file


def tok() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex


@pytest.fixture(scope="module")
def devices_server(module_factory):
    config = {
        "devices": [
            {"token": CONFIGURED, "topic": TOPIC, "environment": "sandbox", "appState": "foreground",
             "foregroundPresentation": ["banner", "sound"]},
        ],
    }
    return module_factory(config=config)


def register(server, token, **fields):
    body = {"environment": "sandbox", "topic": TOPIC, "virtual": True, **fields}
    resp = server.put(f"/v1/devices/{token}", body)
    assert resp.status == 201, (resp.status, resp.body)
    return resp.json


def patch(server, token, body, status=200):
    resp = server.control("PATCH", f"/v1/devices/{token}", body)
    assert resp.status == status, (resp.status, resp.body)
    return resp.json


def push(server, token, headers=ALERT, body='{"aps":{"alert":"hi"}}'):
    resp = server.push(token, headers=headers, body=body)
    assert resp.status == 200, (resp.status, resp.body)
    return server.delivery_by_apns_id(resp.header("apns-id"))


def record(server, seq):
    return server.get_json(f"/v1/deliveries/{seq}")


def states(rec):
    return [event["state"] for event in rec.get("lifecycle", [])]


def test_offline_collapse_then_online_delivers_one_and_the_first_says_replaced(devices_server):
    server, token = devices_server, tok()
    register(server, token, connectivity="offline")
    first = push(server, token, ALERT + (("apns-collapse-id", "score"),), '{"aps":{"alert":"1-0"}}')
    assert record(server, first["seq"])["lifecycleState"] == "Stored - Device Offline"
    second = push(server, token, ALERT + (("apns-collapse-id", "score"),), '{"aps":{"alert":"2-0"}}')
    assert server.get_json(f"/v1/devices/{token}")["stored"]["notification"] == second["seq"]
    device = patch(server, token, {"connectivity": "online"})
    assert device["delivered"] == [second["seq"]], device
    first, second = record(server, first["seq"]), record(server, second["seq"])
    assert states(first) == ["Received by APNs", "Stored - Device Offline", "Replaced"], first
    assert first["lifecycle"][-1]["replacedBy"] == second["seq"]
    assert states(second) == ["Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"]
    assert second["lifecycle"][1]["replaced"] == first["seq"]
    assert second["device"]["presentation"]["banner"] is True
    # The delivery log by apns-unique-id, as the console gives it.
    log = server.get_json(f"/v1/delivery-log/{second['uniqueId']}")["notifications"]
    assert [entry["seq"] for entry in log] == [second["seq"]]
    assert [event["state"] for event in log[0]["log"]] == states(second)


def test_expiration_passing_while_stored_is_discarded_expired(devices_server):
    server, token = devices_server, tok()
    register(server, token, connectivity="offline")
    clock = server.get_json("/v1/clock")
    now = time.time() + clock["offsetSeconds"]
    stored = push(server, token, ALERT + (("apns-expiration", str(int(now) + 60)),))
    assert record(server, stored["seq"])["lifecycleState"] == "Stored - Device Offline"
    resp = server.put("/v1/clock", {"offsetSeconds": clock["offsetSeconds"] + 3600})
    assert resp.status == 200, resp.body
    try:
        rec = record(server, stored["seq"])
        assert rec["lifecycleState"] == "Discarded - Expired (From Storage)", rec
        assert rec["lifecycle"][-1]["atSeconds"] == int(now) + 60
        device = patch(server, token, {"connectivity": "online"})
        assert device["delivered"] == [] and device["stored"] is None, device
        metrics = server.get_json("/v1/delivery-metrics")["total"]
        assert metrics["discardedFromStorage"].get("expired", 0) >= 1, metrics
    finally:
        server.put("/v1/clock", {"offsetSeconds": clock["offsetSeconds"]})


def test_a_force_quit_app_gets_no_background_wake(devices_server):
    server = devices_server
    quit_token, suspended_token = tok(), tok()
    capabilities = {"remoteNotificationBackgroundMode": True}
    register(server, quit_token, appState="forceQuit", capabilities=capabilities)
    register(server, suspended_token, appState="suspended", capabilities=capabilities)
    body = '{"aps":{"content-available":1}}'
    quit_rec = record(server, push(server, quit_token, BACKGROUND, body)["seq"])
    woken = record(server, push(server, suspended_token, BACKGROUND, body)["seq"])
    assert quit_rec["lifecycleState"] == "Delivered to Device", quit_rec
    assert quit_rec["device"]["wake"] == "none" and quit_rec["device"]["callbacks"] == [], quit_rec["device"]
    assert woken["device"]["wake"] == "resumed", woken["device"]
    assert [c["name"] for c in woken["device"]["callbacks"]] == ["didReceiveRemoteNotification"]
    assert server.get_json(f"/v1/devices/{quit_token}")["appState"] == "forceQuit"
    # The wait and the list filter on it.
    query = f"token={quit_token}&lifecycle=delivered&callback=none&timeoutMs=2000"
    assert server.get_json(f"/v1/deliveries/wait?{query}")["complete"] is True


def test_a_tap_on_an_action_of_a_registered_category_records_the_response(devices_server):
    server, token = devices_server, tok()
    register(server, token, appState="notRunning", categories=[
        {"identifier": "MEETING", "actions": [
            {"identifier": "ACCEPT", "title": "Accept", "options": ["foreground"]},
            {"identifier": "REPLY", "title": "Reply", "textInput": True}]}])
    pushed = push(server, token, body='{"aps":{"alert":"Lunch?","category":"MEETING"}}')
    rec = record(server, pushed["seq"])
    assert [a["identifier"] for a in rec["device"]["actions"]] == ["ACCEPT", "REPLY"], rec["device"]
    path = f"/v1/devices/{token}/interactions"
    bad = server.control("POST", path, {"notification": pushed["seq"], "type": "action", "action": "ACCEPTT"})
    assert bad.status == 400 and bad.json["error"].startswith("action:"), bad.body
    resp = server.control("POST", path, {"notification": pushed["seq"], "type": "action", "action": "REPLY",
                                         "text": "on my way"})
    assert resp.status == 200, resp.body
    outcome = resp.json
    assert outcome["response"] == {"notification": pushed["seq"], "actionIdentifier": "REPLY",
                                   "userText": "on my way"}, outcome
    assert outcome["launch"] == "launchedInBackground" and outcome["appStateAfter"] == "background", outcome
    rec = record(server, pushed["seq"])
    assert [i["response"]["actionIdentifier"] for i in rec["interactions"]] == ["REPLY"], rec
    again = server.control("POST", path, {"notification": pushed["seq"], "type": "tap"})
    assert again.status == 400 and "no notification" in again.json["error"], again.body


def test_was_it_shown_to_the_user(devices_server):
    """The README's worked example: one alert to a foreground, a background and a not-running app."""
    server = devices_server
    shown = {}
    for app_state in ("foreground", "background", "notRunning"):
        token = tok()
        register(server, token, appState=app_state)
        rec = record(server, push(server, token, body='{"aps":{"alert":"Your order shipped","sound":"default"}}')["seq"])
        device = rec["device"]
        shown[app_state] = (device["presentation"]["banner"], [c["name"] for c in device["callbacks"]],
                            device["appStateAfter"])
    assert shown == {
        "foreground": (False, ["willPresent"], "foreground"),
        "background": (True, [], "background"),
        "notRunning": (True, [], "notRunning"),
    }, shown
    # The configured device answers willPresent with banner and sound.
    rec = record(server, push(server, CONFIGURED)["seq"])
    assert rec["device"]["presentation"]["banner"] is True, rec["device"]
    # A token that is not a virtual device keeps today's record: no lifecycle keys.
    plain = push(server, tok())
    assert "lifecycle" not in plain and "device" not in plain, plain


def test_bad_device_input_names_the_field_and_changes_nothing(devices_server):
    server, token = devices_server, tok()
    resp = server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC, "appState": "asleep"})
    assert resp.status == 400 and resp.json["error"].startswith("appState:"), resp.body
    assert server.get(f"/v1/devices/{token}").status == 404
    assert server.control("PATCH", f"/v1/devices/{token}", {"connectivity": "online"}).status == 404
    register(server, token)
    resp = server.control("PATCH", f"/v1/devices/{token}", {"connectivity": "onlin"})
    assert resp.status == 400 and resp.json["error"].startswith("connectivity:"), resp.body
    assert server.get_json(f"/v1/devices/{token}")["connectivity"] == "online"
    resp = server.put(f"/v1/devices/{token}", {"environment": "production", "topic": TOPIC, "virtual": True})
    assert resp.status == 400 and resp.json["error"].startswith("environment:"), resp.body


def test_export_apns_writes_a_file_the_simulator_takes(devices_server, tmp_path):
    server, token = devices_server, tok()
    register(server, token)
    pushed = push(server, token, body='{"aps":{"alert":{"title":"Hi","body":"there"}},"orderId":42}')
    out = tmp_path / "push.apns"
    proc = subprocess.run([str(binary_path()), "export-apns", str(pushed["seq"]), "--control", server.control_url,
                           "--output", str(out)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    data = out.read_bytes()
    # simctl's rules: a JSON object at the top level, an aps object, the bundle key, at most 4096 bytes.
    document = json.loads(data)
    assert isinstance(document, dict) and isinstance(document.get("aps"), dict), document
    assert document["Simulator Target Bundle"] == TOPIC and document["orderId"] == 42, document
    assert len(data) <= 4096
    assert server.get(f"/v1/deliveries/{pushed['seq']}/apns").body == data
    voip = server.push(tok(), headers=(("apns-topic", TOPIC + ".voip"), ("apns-push-type", "voip")))
    seq = server.delivery_by_apns_id(voip.header("apns-id"))["seq"]
    proc = subprocess.run([str(binary_path()), "export-apns", str(seq), "--control", server.control_url],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 1 and "answered 409" in proc.stderr, (proc.returncode, proc.stderr)
    # A push APNs rejected reached no device: refused with the reason, and seqs start at 1.
    rejected = server.push(token, headers=(("apns-topic", "com.other.app"), ("apns-push-type", "alert")))
    assert rejected.status != 200, rejected.status
    seq = server.delivery_by_apns_id(rejected.header("apns-id"))["seq"]
    resp = server.get(f"/v1/deliveries/{seq}/apns")
    assert resp.status == 409 and "APNs did not accept it" in resp.json["error"], (resp.status, resp.body)
    resp = server.get("/v1/deliveries/0/apns")
    assert resp.status == 400 and "seq must be an integer from 1" in resp.json["error"], (resp.status, resp.body)


def test_a_delayed_push_reaches_the_device_only_once_answered(devices_server):
    """A push held by a delay fault reaches its virtual device when its answer is sent, and not
    at all when the sender gave up first (docs/device-model.md §7): a device never gets what the
    sender was not told was accepted."""
    server, gave_up, waited = devices_server, tok(), tok()
    register(server, gave_up)
    register(server, waited)
    rules = []
    for token, ms in ((gave_up, 3000), (waited, 800)):
        resp = server.control("POST", "/v1/faults", {"match": {"token": token}, "action": {"type": "delay", "ms": ms}})
        assert resp.status == 201, resp.body
        rules.append(resp.json["faults"][0]["id"])
    try:
        started = time.monotonic()
        with pytest.raises(AssertionError, match="rc=28"):  # curl gives up after 0.5 s (timeout)
            server.push(gave_up, timeout=1.0, curl_args=("--max-time", "0.5"))
        held = server.deliveries(token=gave_up)["deliveries"][0]
        assert states(held) == [], held  # no answer yet, nothing on the device
        resp = server.push(waited)
        assert resp.status == 200 and time.monotonic() - started >= 0.8
        answered = server.deliveries(token=waited)["deliveries"][0]
        assert states(answered)[:2] == ["Received by APNs", "Delivered to Device"], answered
        # Past the first delay's end: its sender was gone, so the device never got it.
        time.sleep(max(0.0, 3.3 - (time.monotonic() - started)))
        held = server.deliveries(token=gave_up)["deliveries"][0]
        assert held["status"] is None and held["unanswered"] == "connection-closed-by-client", held
        assert states(held) == [], held
        assert server.get_json(f"/v1/devices/{gave_up}")["delivered"] == []
    finally:
        for rule in rules:
            server.control("DELETE", f"/v1/faults/{rule}")


def test_an_app_removed_answers_410_unregistered_since_installed_went_false(devices_server):
    """docs/device-model.md §2.3: removedApp "unregistered" (default): the token is unregistered
    from the moment installed went false, so the provider API answers 410 Unregistered with that
    timestamp; installed again, pushes are accepted."""
    server, token = devices_server, tok()
    register(server, token)
    device = patch(server, token, {"installed": False})
    since = device["unregisteredAt"]
    assert since is not None, device
    resp = server.push(token, headers=ALERT, body='{"aps":{"alert":"hi"}}')
    assert resp.status == 410, (resp.status, resp.body)
    answer = json.loads(resp.body)
    assert answer["reason"] == "Unregistered"
    assert answer["timestamp"] == since, (answer, since)
    # Still removed: the moment stays the one installed went false.
    assert patch(server, token, {"appState": "foreground"})["unregisteredAt"] == since
    device = patch(server, token, {"installed": True})
    assert device["unregisteredAt"] is None, device
    push(server, token)
