"""The web console (issue 18, docs/console.md) in a real headless Chromium driven by Selenium:
the page loads without console errors, a push sent over HTTP/2 from Python appears without a
reload, a filter narrows the list, clicking a row shows its details and the lock-screen banner,
a rejected push shows its reason and lint, the compose form sends through POST /v1/send and shows
the answer, a fault added in the page rejects the next push, an XSS payload stays text, and a
foreign Origin cannot use the API. Screenshots of each view are saved under the test's tmp_path.

Needs Debian's chromium and chromium-driver and selenium from PyPI (scripts/install-deps.sh
--test installs them)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import time
import urllib.request
from types import SimpleNamespace

import pytest

from livelib import TOPIC, Listener, apns_headers, h2_client_for

try:
    import selenium  # noqa: F401
except ImportError as missing:  # a missing browser driver fails the suite, it never skips it
    raise pytest.UsageError(
        "tests/live/test_console.py needs selenium (tests/live/requirements.txt; scripts/install-deps.sh --test)"
    ) from missing
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if CHROMIUM is None or CHROMEDRIVER is None:
    raise pytest.UsageError("tests/live/test_console.py needs chromium and chromium-driver (Debian) on PATH")

XSS = '<img src=x onerror="window.__pwned=1">'


@pytest.fixture(scope="module")
def console_server(module_factory):
    return module_factory()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


def wait(driver, timeout=5):
    return WebDriverWait(driver, timeout, poll_frequency=0.05)


def push_h2(server, payload: dict, *, token="ab" * 32, push_type="alert", topic=TOPIC, extra=()):
    client = h2_client_for(server.listener)
    try:
        response = client.request(apns_headers(token, topic=topic, push_type=push_type, extra=extra),
                                  json.dumps(payload).encode())
        return response
    finally:
        client.close()


def severe_console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def row_for(driver, seq, timeout=5):
    return wait(driver, timeout).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, f'#delivery-rows tr[data-seq="{seq}"]')))


def open_console(driver, server):
    driver.get(server.control_url + "/console")
    wait(driver).until(lambda d: d.find_element(By.ID, "connection-state").text == "live")


def test_console_end_to_end(console_server, browser, tmp_path):
    server = console_server
    started = time.monotonic()
    open_console(browser, server)
    assert severe_console_errors(browser) == []
    browser.save_screenshot(str(tmp_path / "deliveries-empty.png"))

    # A push over HTTP/2 appears within a second, without reload.
    marker = browser.execute_script("window.__notReloaded = 42; return window.__notReloaded;")
    sent = time.monotonic()
    response = push_h2(server, {"aps": {"alert": {"title": "Order", "subtitle": "No. 7", "body": "It shipped"},
                                        "badge": 2}})
    assert response.status == 200
    first = server.deliveries()["deliveries"][-1]["seq"]
    row = row_for(browser, first, timeout=1.5)
    assert time.monotonic() - sent < 1.5
    assert browser.execute_script("return window.__notReloaded;") == marker
    cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
    assert cells[2] == "200" and cells[5] == TOPIC and cells[6] == "alert", cells
    assert re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}", cells[1]), f"24-hour HH:MM:SS.mmm: {cells}"

    # Clicking shows the details and the banner.
    row.click()
    banner = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#preview .banner")))
    assert banner.find_element(By.CLASS_NAME, "banner-title").text == "Order"
    assert banner.find_element(By.CLASS_NAME, "banner-subtitle").text == "No. 7"
    assert banner.find_element(By.CLASS_NAME, "banner-body").text == "It shipped"
    assert banner.find_element(By.CLASS_NAME, "badge").text == "2"
    assert "APP" in banner.find_element(By.CLASS_NAME, "banner-head").text.upper()
    assert "apns-topic: " + TOPIC in browser.find_element(By.ID, "detail-body").text
    browser.save_screenshot(str(tmp_path / "delivery-banner.png"))

    # A rejected push (a background push at priority 10 to a bad token) shows reason and lint.
    response = push_h2(server, {"aps": {"content-available": 1}}, token="zz", push_type="background",
                       extra=(("apns-priority", "10"),))
    assert response.status == 400
    rejected = server.deliveries()["deliveries"][-1]
    row = row_for(browser, rejected["seq"])
    assert rejected["reason"] in row.text
    row.click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "detail-title"), str(rejected["seq"])))
    detail = browser.find_element(By.ID, "detail")
    wait(browser).until(lambda d: rejected["reason"] in detail.text)
    assert "Not delivered" in browser.find_element(By.ID, "preview").text
    if rejected["lints"]:
        assert rejected["lints"][0] in detail.text

    # A lint points at its key in the pretty-printed payload.
    response = push_h2(server, {"aps": {"alert": "x", "badge": "3"}})
    linted = server.deliveries()["deliveries"][-1]
    assert any(lint.startswith("aps.badge") for lint in linted["lints"]), linted["lints"]
    row_for(browser, linted["seq"]).click()
    mark = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#detail-body pre.payload mark")))
    assert mark.text == '"badge"'

    # A background push is shown as silent.
    response = push_h2(server, {"aps": {"content-available": 1}}, push_type="background",
                       extra=(("apns-priority", "5"),))
    assert response.status == 200
    row_for(browser, server.deliveries()["deliveries"][-1]["seq"]).click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "preview"), "Silent"))

    # The XSS payload renders as text and runs nothing.
    response = push_h2(server, {"aps": {"alert": {"title": XSS, "body": XSS}}})
    assert response.status == 200
    xss_seq = server.deliveries()["deliveries"][-1]["seq"]
    row_for(browser, xss_seq).click()
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#preview .banner-title"), XSS))
    assert browser.find_elements(By.CSS_SELECTOR, "#preview img, #detail-body img") == []
    time.sleep(0.2)
    assert browser.execute_script("return window.__pwned === undefined")

    # A filter narrows the list; the payload search too.
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("rejected")
    try:
        wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#delivery-rows tr")) == 1)
    except Exception:
        raise AssertionError(browser.find_element(By.ID, "delivery-rows").text)
    Select(browser.find_element(By.ID, "filter-status")).select_by_value("")
    browser.find_element(By.ID, "filter-search").send_keys("shipped")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#delivery-rows tr")) == 1)
    browser.find_element(By.ID, "filter-search").clear()
    browser.execute_script("document.getElementById('filter-search').dispatchEvent(new Event('input'))")

    # Compose sends through POST /v1/send and shows the answer; the record appears.
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="compose"]').click()
    size = browser.find_element(By.ID, "compose-size").text
    assert size.endswith("of 4096 bytes"), size
    Select(browser.find_element(By.ID, "compose-template")).select_by_value("voip")
    assert browser.find_element(By.ID, "compose-size").text.endswith("of 5120 bytes")
    Select(browser.find_element(By.ID, "compose-template")).select_by_value("alert")
    browser.find_element(By.ID, "compose-send").click()
    answer = wait(browser).until(EC.text_to_be_present_in_element((By.ID, "compose-answer"), "record seq"))
    assert answer
    text = browser.find_element(By.ID, "compose-answer").text
    assert "200" in text, text
    composed = server.deliveries()["deliveries"][-1]
    assert composed["payload"]["aps"]["alert"]["body"] == "Your order shipped"
    assert str(composed["seq"]) in text
    browser.find_element(By.ID, "compose-copy-curl").click()
    command = browser.find_element(By.ID, "compose-command").get_attribute("value")
    assert command.startswith("curl --http2") and "apns-topic: " + TOPIC in command, command
    browser.find_element(By.ID, "compose-copy-cli").click()
    command = browser.find_element(By.ID, "compose-command").get_attribute("value")
    assert command.startswith("mock-apns send") and "--topic" in command, command
    browser.save_screenshot(str(tmp_path / "compose.png"))

    # A fault added in the page rejects the next push.
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="faults"]').click()
    editor = browser.find_element(By.ID, "fault-json")
    editor.clear()
    editor.send_keys('{"match": {"topic": "com.example.app"}, "action": {"type": "respund"}}')
    browser.find_element(By.CSS_SELECTOR, "#fault-form button").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "fault-error").text != "")
    assert "respund" in browser.find_element(By.ID, "fault-error").text
    editor.clear()
    editor.send_keys('{"match": {"topic": "com.example.app"}, "action": {"type": "respond", "status": 503}, '
                     '"lifetime": {"times": 1}}')
    browser.find_element(By.CSS_SELECTOR, "#fault-form button").click()
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fault-rows button")) == 1)
    browser.save_screenshot(str(tmp_path / "faults.png"))
    assert push_h2(server, {"aps": {"alert": "x"}}).status == 503
    assert push_h2(server, {"aps": {"alert": "x"}}).status == 200

    # The provider-token validator decodes a JWT and has the listener check it.
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="validate"]').click()
    def b64(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    jwt = b64({"alg": "ES256", "kid": "NOSUCHKEY1"}) + "." + b64({"iss": "TEAM000001", "iat": int(time.time())}) + ".AAAA"
    browser.find_element(By.ID, "validate-jwt-token").send_keys(jwt)
    browser.find_element(By.CSS_SELECTOR, "#validate-jwt button").click()
    verdict = wait(browser).until(EC.visibility_of_element_located((By.ID, "validate-jwt-verdict")))
    assert verdict.text.startswith("403 InvalidProviderToken"), verdict.text
    assert "NOSUCHKEY1" in browser.find_element(By.ID, "validate-jwt-result").text

    for view in ("connections", "devices", "validate"):
        browser.find_element(By.CSS_SELECTOR, f'.tab[data-view="{view}"]').click()
        time.sleep(0.2)
        browser.save_screenshot(str(tmp_path / f"{view}.png"))
    # The one error expected: the browser logs the 400 of the rule refused above.
    errors = [e["message"] for e in severe_console_errors(browser)]
    assert all("/v1/faults" in m and "400" in m for m in errors), errors
    assert time.monotonic() - started < 60


def test_console_files_carry_the_security_policy(console_server):
    for path in ("/console", "/console/", "/console/console.js", "/console/console.css"):
        with urllib.request.urlopen(console_server.control_url + path, timeout=5) as response:
            assert response.status == 200
            policy = response.headers["content-security-policy"]
            assert "script-src 'self'" in policy and "unsafe-inline" not in policy, policy
            assert response.headers["x-content-type-options"] == "nosniff"


def test_a_foreign_origin_cannot_use_the_console_api(console_server, browser, tmp_path):
    """A page of another origin (here a data: page, origin "null") cannot read the API (no CORS
    header) nor change it (403 for a foreign Origin)."""
    server = console_server
    before = len(server.get_json("/v1/faults")["faults"])
    browser.get("data:text/html,<title>evil</title>")
    result = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const base = arguments[0];
        const out = {};
        fetch(base + '/v1/deliveries').then(r => r.text()).then(t => { out.read = 'read'; })
          .catch(e => { out.read = 'blocked'; })
          .then(() => fetch(base + '/v1/faults', {method: 'POST', headers: {'content-type': 'application/json'},
                 body: '{"action":{"type":"respond","status":503}}'}))
          .then(r => { out.write = r.status; }).catch(e => { out.write = 'blocked'; })
          .then(() => done(out));
        """,
        server.control_url,
    )
    assert result["read"] == "blocked", result
    assert result["write"] in ("blocked", 403), result
    assert len(server.get_json("/v1/faults")["faults"]) == before


def test_with_a_control_token_the_page_asks_for_it(module_factory, browser, tmp_path):
    server = module_factory("--control-token", "s3cret-console")
    browser.get(server.control_url + "/console")
    form = wait(browser).until(EC.visibility_of_element_located((By.ID, "token-form")))
    browser.find_element(By.ID, "token-input").send_keys("s3cret-console")
    form.find_element(By.TAG_NAME, "button").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "connection-state").text == "live")
    push_h2(server, {"aps": {"alert": "with a token"}})
    row_for(browser, 1)
    browser.save_screenshot(str(tmp_path / "token.png"))


def test_a_virtual_device_shows_its_actions_and_can_be_switched(console_server, browser, tmp_path):
    server = console_server
    token = "f0" * 32
    status = server.put(f"/v1/devices/{token}", {
        "environment": "sandbox", "topic": TOPIC, "appState": "background",
        "categories": [{"identifier": "REPLY", "actions": [{"identifier": "like", "title": "Like"}]}]}).status
    assert status in (200, 201)
    open_console(browser, server)
    assert push_h2(server, {"aps": {"alert": {"title": "New message", "body": "Hi"}, "category": "REPLY"}},
                   token=token).status == 200
    seq = server.deliveries(token=token)["deliveries"][-1]["seq"]
    row_for(browser, seq).click()
    actions = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#preview .banner-actions")))
    assert actions.text == "Like"
    assert "Delivered to Device" in browser.find_element(By.ID, "detail-body").text
    browser.save_screenshot(str(tmp_path / "virtual-device.png"))
    # The user taps the action button: the device's response is shown and recorded.
    browser.find_element(By.XPATH, '//div[@id="preview"]//button[text()="Like"]').click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "interaction-outcome"), "like"))
    assert server.get_json(f"/v1/deliveries/{seq}")["interactions"], "the interaction was not recorded"

    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="devices"]').click()
    select = wait(browser).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, f'select[aria-label="connectivity of {token}"]')))
    Select(select).select_by_value("offline")
    wait(browser).until(lambda d: "connectivity is now offline" in d.find_element(By.ID, "device-message").text)
    assert server.get_json(f"/v1/devices/{token}")["connectivity"] == "offline"
    assert push_h2(server, {"aps": {"alert": "stored"}}, token=token).status == 200
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="deliveries"]').click()
    row_for(browser, server.deliveries(token=token)["deliveries"][-1]["seq"]).click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "preview"), "Held"))


def test_a_connection_can_be_sent_a_goaway_from_the_page(console_server, browser):
    server = console_server
    client = h2_client_for(server.listener)
    try:
        assert client.request(apns_headers("ab" * 32), b'{"aps":{"alert":"hi"}}').status == 200
        open_console(browser, server)
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="connections"]').click()
        button = wait(browser).until(EC.element_to_be_clickable(
            (By.XPATH, '//tbody[@id="connection-rows"]/tr/td/button[text()="GOAWAY"]')))
        button.click()
        wait(browser).until(lambda d: "goaway sent to connection" in d.find_element(By.ID, "connection-message").text)
        events = server.get_json("/v1/events?kind=goaway")["events"]
        assert events and events[-1]["origin"] == "command", events
    finally:
        client.close()


def test_a_burst_is_drawn_as_the_newest_rows_only(module_factory, browser):
    """1,200 pushes at once: the page catches up to the newest record without reading them all
    one page after another, and draws at most 300 rows."""
    server = module_factory()
    open_console(browser, server)
    client = h2_client_for(server.listener)
    try:
        body = b'{"aps":{"alert":"burst"}}'
        answers = client.run_many([(apns_headers("ab" * 32), body)] * 1200, concurrency=100)
        assert all(a.status == 200 for a in answers)
    finally:
        client.close()
    last = server.stats()["lastSeq"]
    row_for(browser, last, timeout=5)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#delivery-rows tr")) == 300
    assert "newest 300" in browser.find_element(By.ID, "delivery-count").text


def test_deliveries_and_connection_events_arrive_over_the_live_stream(module_factory, browser, tmp_path):
    """The page reads GET /v1/deliveries/stream (an EventSource), not the poll; the events view
    reads /v1/events/stream: a new connection and its GOAWAY show up with kind, connection and reason."""
    server = module_factory()
    severe_console_errors(browser)  # reading the log empties it: only this test's errors below
    open_console(browser, server)
    assert browser.execute_script("return window.__consoleDeliverySource") == "stream"
    sent = time.monotonic()
    assert push_h2(server, {"aps": {"alert": "over the stream"}}).status == 200
    row_for(browser, server.stats()["lastSeq"], timeout=1.5)
    assert time.monotonic() - sent < 1.5
    assert browser.execute_script("return window.__consoleDeliverySource") == "stream"

    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="events"]').click()
    wait(browser).until(lambda d: d.execute_script("return window.__consoleEventSource") == "stream")
    client = h2_client_for(server.listener)
    try:
        assert client.request(apns_headers("ab" * 32), b'{"aps":{"alert":"hi"}}').status == 200
        connection = server.get_json("/v1/connections")["connections"][-1]["id"]
        assert server.control("POST", f"/v1/connections/{connection}/goaway", b"").status == 200
        rows_js = ("return [...document.querySelectorAll('#event-rows tr')]"
                   ".map(r => [...r.querySelectorAll('td')].map(c => c.textContent))")
        cells = wait(browser).until(lambda d: next(
            (r for r in d.execute_script(rows_js) if len(r) > 2 and r[2] == "goaway"), None))
        assert cells[3] == str(connection), cells
        assert "NO_ERROR" in cells[6], cells
        kinds = [r[2] for r in browser.execute_script(rows_js) if len(r) > 2]
        assert "opened" in kinds, kinds
    finally:
        client.close()
    browser.save_screenshot(str(tmp_path / "events.png"))
    assert severe_console_errors(browser) == []


def test_a_refused_stream_falls_back_to_polling(module_factory, browser):
    """With --control-max-streams 1 held by another client, the stream answers 503: the page says
    so and polls, and a push still shows up."""
    server = module_factory("--control-max-streams", "1")
    held = urllib.request.urlopen(server.control_url + "/v1/deliveries/stream", timeout=5)
    try:
        browser.get(server.control_url + "/console")
        wait(browser).until(lambda d: d.execute_script("return window.__consoleDeliverySource") == "polling")
        wait(browser).until(EC.text_to_be_present_in_element((By.ID, "stream-notice"), "refused"))
        assert push_h2(server, {"aps": {"alert": "polled"}}).status == 200
        row_for(browser, server.stats()["lastSeq"], timeout=2)
    finally:
        held.close()


def test_the_gateway_picker_shows_an_isolated_gateway_and_composes_there(module_factory, browser, tmp_path):
    server = module_factory()
    made = server.control("POST", "/v1/gateways", {"name": "suite-a"}).json
    try:
        open_console(browser, server)
        Select(browser.find_element(By.ID, "gateway")).select_by_value(made["controlBase"])
        wait(browser).until(lambda d: d.find_element(By.ID, "connection-state").text == "live")
        gateway = Listener(name="suite-a", environment=made["environment"], url=made["url"],
                           scheme=made["url"].split(":")[0], host="127.0.0.1", port=made["port"])
        assert push_h2(server, {"aps": {"alert": "to suite-a"}}).status == 200  # the default gateway's
        assert push_h2(SimpleNamespace(listener=gateway), {"aps": {"alert": "to suite-a"}}).status == 200
        row = row_for(browser, 1, timeout=2)
        assert browser.execute_script("return window.__consoleDeliverySource") == "stream"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#delivery-rows tr")) == 1
        assert row.find_elements(By.TAG_NAME, "td")[5].text == TOPIC

        # Compose under the gateway: POST /v1/gateways/g1/v1/send pushes to its own listener.
        browser.find_element(By.CSS_SELECTOR, '.tab[data-view="compose"]').click()
        wait(browser).until(lambda d: "suite-a" in d.find_element(By.ID, "compose-listener").text)
        browser.find_element(By.ID, "compose-send").click()
        wait(browser).until(EC.text_to_be_present_in_element((By.ID, "compose-answer"), "record seq"))
        assert "200" in browser.find_element(By.ID, "compose-answer").text
        records = server.get_json(made["controlBase"] + "/v1/deliveries")["deliveries"]
        assert [r["payload"]["aps"]["alert"]["body"] for r in records[1:]] == ["Your order shipped"], records
        assert len(server.deliveries()["deliveries"]) == 1
        browser.save_screenshot(str(tmp_path / "gateway.png"))
    finally:
        server.delete(f"/v1/gateways/{made['id']}")


def test_the_rate_chart_counts_pushes_and_the_channels_view_lists_channels(module_factory, browser, tmp_path):
    server = module_factory()
    open_console(browser, server)
    assert push_h2(server, {"aps": {"alert": "one"}}).status == 200
    assert push_h2(server, {"aps": {"alert": "two"}}).status == 200
    assert push_h2(server, {"aps": {"alert": "bad"}}, token="zz").status == 400
    wait(browser, 4).until(EC.text_to_be_present_in_element((By.ID, "rate-caption"), "3 pushes in the last 120 s"))
    assert "(1 not 200)" in browser.find_element(By.ID, "rate-caption").text
    assert browser.find_element(By.ID, "rate-chart").get_attribute("aria-label").startswith("pushes per second: 3")

    made = server.control("POST", "/v1/channels", {"bundleId": TOPIC, "environment": "sandbox",
                                                   "messageStoragePolicy": 1})
    assert made.status in (200, 201), made.body
    channel = made.json["id"]
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="channels"]').click()
    row = wait(browser).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, f'#channel-rows tr[data-channel="{channel}"]')))
    assert TOPIC in row.text and "1 (most recent stored)" in row.text, row.text
    browser.save_screenshot(str(tmp_path / "channels.png"))
    row.find_element(By.TAG_NAME, "button").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "channel-message"), "deleted"))
    assert server.get_json("/v1/channels")["channels"] == []


def test_copied_commands_quote_a_hostile_token(console_server, browser, tmp_path):
    """A recorded device token is whatever the sender put in the path: the copied commands pass it
    as one argument, and pasting them into a shell runs nothing else (review: `;{touch,FILE};`)."""
    open_console(browser, console_server)
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="compose"]').click()
    pwned = tmp_path / "pwned"
    token = f";{{touch,{pwned}}};$(touch {pwned})'`touch {pwned}`"
    field = browser.find_element(By.ID, "compose-token")
    field.clear()
    field.send_keys(token)
    for button, program in (("compose-copy-cli", "mock-apns"), ("compose-copy-curl", "curl")):
        browser.find_element(By.ID, button).click()
        command = browser.find_element(By.ID, "compose-command").get_attribute("value")
        assert command.startswith(program + " "), command
        # The command with its program replaced by one that prints each argument on a line.
        shown = subprocess.run(["bash", "-c", "printf '%s\\n' " + command[len(program) + 1:]],
                               capture_output=True, text=True, cwd=tmp_path, timeout=10)
        assert shown.returncode == 0, shown.stderr
        arguments = shown.stdout.split("\n")
        assert token in arguments or any(a.endswith("/3/device/" + token) for a in arguments), arguments
        assert not pwned.exists(), f"{button} ran a command from the token: {command}"


def test_the_jwt_generator_makes_a_token_a_strict_listener_accepts(module_factory, browser, tmp_path):
    """Validate → Generate: a token signed with the server's test key (POST /v1/provider-tokens),
    its header and claims shown; the validator accepts it; Compose without it is refused 403 by
    the strict listener and accepted with it; Compose says how the listener authenticates."""
    server = module_factory("--auth", "strict")
    severe_console_errors(browser)  # reading the log empties it: only this test's errors below
    open_console(browser, server)
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="compose"]').click()
    auth = wait(browser).until(lambda d: d.find_element(By.ID, "compose-auth").text or None)
    assert "strictly" in auth and "no client certificate" in auth, auth
    browser.find_element(By.ID, "compose-send").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "compose-answer"), "403"))
    assert "MissingProviderToken" in browser.find_element(By.ID, "compose-answer").text

    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="validate"]').click()
    browser.find_element(By.ID, "generate-jwt-button").click()
    token = wait(browser).until(EC.presence_of_element_located((By.ID, "generate-jwt-token"))).get_attribute("value")
    assert token.count(".") == 2, token
    header = json.loads(browser.find_element(By.ID, "generate-jwt-header").text)
    claims = json.loads(browser.find_element(By.ID, "generate-jwt-claims").text)
    assert header == {"alg": "ES256", "kid": "CONSOLEKEY"}, header
    assert claims["iss"] == "MOCKAPNS00" and abs(claims["iat"] - time.time()) < 60, claims
    browser.find_element(By.ID, "generate-jwt-copy").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "generate-jwt-copied").text != "")
    browser.find_element(By.ID, "generate-jwt-check").click()
    verdict = wait(browser).until(EC.visibility_of_element_located((By.ID, "validate-jwt-verdict")))
    assert verdict.text.startswith("Accepted"), verdict.text
    browser.save_screenshot(str(tmp_path / "jwt-generator.png"))

    browser.find_element(By.ID, "generate-jwt-compose").click()
    field = wait(browser).until(EC.visibility_of_element_located((By.ID, "compose-authorization")))
    assert field.get_attribute("value") == "bearer " + token
    browser.find_element(By.ID, "compose-send").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "compose-answer"), "record seq"))
    record = server.deliveries()["deliveries"][-1]
    assert record["status"] == 200, record

    # An expired one: 61 minutes old, the validator says so.
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="validate"]').click()
    Select(browser.find_element(By.ID, "generate-jwt-age")).select_by_value("3700")
    browser.find_element(By.ID, "generate-jwt-button").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "generate-jwt-token").get_attribute("value") != token)
    browser.find_element(By.ID, "generate-jwt-check").click()
    wait(browser).until(EC.text_to_be_present_in_element((By.ID, "validate-jwt-verdict"), "ExpiredProviderToken"))
    assert severe_console_errors(browser) == []


def test_the_fault_scenario_picker_fills_the_editor(module_factory, browser, tmp_path):
    """Faults: the presets of GET /v1/fault-scenarios in a picker; choosing one fills the JSON
    editor with its example and says what it does; adding it rejects the next push."""
    server = module_factory()
    offered = [s["name"] for s in server.get_json("/v1/fault-scenarios")["scenarios"]]
    assert "apns-outage" in offered and "throttled" in offered, offered
    open_console(browser, server)
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="faults"]').click()
    picker = wait(browser).until(lambda d: d.find_element(By.ID, "fault-scenario")
                                 if len(d.find_elements(By.CSS_SELECTOR, "#fault-scenario option")) > 1 else None)
    names = [o.get_attribute("value") for o in picker.find_elements(By.TAG_NAME, "option")][1:]
    assert names == offered, names
    Select(picker).select_by_value("throttled")
    assert json.loads(browser.find_element(By.ID, "fault-json").get_attribute("value"))["scenario"] == "throttled"
    assert "perSecond" in browser.find_element(By.ID, "fault-scenario-help").text
    Select(picker).select_by_value("apns-outage")
    body = json.loads(browser.find_element(By.ID, "fault-json").get_attribute("value"))
    assert body == {"scenario": "apns-outage", "parameters": {"durationMs": 60000}}, body
    assert "503 ServiceUnavailable" in browser.find_element(By.ID, "fault-scenario-help").text
    browser.find_element(By.CSS_SELECTOR, "#fault-form button").click()
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fault-rows button")) == 1)
    assert "scenario apns-outage" in browser.find_element(By.ID, "fault-rows").text
    browser.save_screenshot(str(tmp_path / "fault-scenarios.png"))
    response = push_h2(server, {"aps": {"alert": "during the outage"}})
    assert response.status == 503
    browser.find_element(By.CSS_SELECTOR, "#fault-rows button").click()
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fault-rows button")) == 0)
    assert push_h2(server, {"aps": {"alert": "after"}}).status == 200


def test_the_channels_view_counts_subscribers(module_factory, browser, tmp_path):
    server = module_factory()
    channel = server.control("POST", "/v1/channels", {"bundleId": TOPIC, "environment": "sandbox",
                                                      "messageStoragePolicy": 0}).json["id"]
    lonely = server.control("POST", "/v1/channels", {"bundleId": TOPIC, "environment": "sandbox",
                                                     "messageStoragePolicy": 0}).json["id"]
    for token in ("f1" * 32, "f2" * 32):
        status = server.put(f"/v1/devices/{token}", {"environment": "sandbox", "topic": TOPIC,
                                                     "channels": [channel]}).status
        assert status in (200, 201)
    open_console(browser, server)
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="channels"]').click()
    cell = wait(browser).until(EC.presence_of_element_located(
        (By.CSS_SELECTOR, f'#channel-rows tr[data-channel="{channel}"] .subscribers')))
    assert cell.get_attribute("data-count") == "2"
    assert cell.text == "2: f1f1f1f1…f1f1, f2f2f2f2…f2f2", cell.text
    assert cell.get_attribute("title").split("\n") == ["f1" * 32, "f2" * 32]
    other = browser.find_element(By.CSS_SELECTOR, f'#channel-rows tr[data-channel="{lonely}"] .subscribers')
    assert other.get_attribute("data-count") == "0" and other.text == "0"
    browser.save_screenshot(str(tmp_path / "channel-subscribers.png"))


def test_the_events_view_filters_by_kind_connection_and_listener(module_factory, browser, tmp_path):
    server = module_factory()
    open_console(browser, server)
    browser.find_element(By.CSS_SELECTOR, '.tab[data-view="events"]').click()
    wait(browser).until(lambda d: d.execute_script("return window.__consoleEventSource") == "stream")
    ids = []
    for _ in range(2):
        client = h2_client_for(server.listener)
        try:
            assert client.request(apns_headers("ab" * 32), b'{"aps":{"alert":"hi"}}').status == 200
            ids.append(server.get_json("/v1/connections")["connections"][-1]["id"])
        finally:
            client.close()
    rows_js = ("return [...document.querySelectorAll('#event-rows tr[data-seq]')]"
               ".map(r => [...r.querySelectorAll('td')].map(c => c.textContent))")
    wait(browser).until(lambda d: sum(1 for r in d.execute_script(rows_js) if r[2] == "closed") >= 2)
    every = browser.execute_script(rows_js)
    assert {r[3] for r in every} >= {str(i) for i in ids}, every

    Select(browser.find_element(By.ID, "event-filter-kind")).select_by_value("opened")
    rows = browser.execute_script(rows_js)
    assert rows and all(r[2] == "opened" for r in rows), rows
    assert {r[3] for r in rows} == {str(i) for i in ids}, rows
    field = browser.find_element(By.ID, "event-filter-connection")
    field.send_keys(str(ids[0]))
    rows = browser.execute_script(rows_js)
    assert [(r[2], r[3]) for r in rows] == [("opened", str(ids[0]))], rows
    assert "1 of" in browser.find_element(By.ID, "event-count").text
    Select(browser.find_element(By.ID, "event-filter-kind")).select_by_value("")
    rows = browser.execute_script(rows_js)
    assert rows and all(r[3] == str(ids[0]) for r in rows) and {"opened", "closed"} <= {r[2] for r in rows}, rows
    listener = Select(browser.find_element(By.ID, "event-filter-listener"))
    assert server.listener.name in [o.get_attribute("value") for o in listener.options]
    listener.select_by_value(server.listener.name)
    assert browser.execute_script(rows_js) == rows
    field.clear()
    field.send_keys("999999")
    assert browser.execute_script(rows_js) == []
    assert "No event matches" in browser.find_element(By.ID, "event-rows").text
    browser.save_screenshot(str(tmp_path / "events-filtered.png"))


def test_a_delivery_previews_on_another_device_and_app_state(module_factory, browser, tmp_path):
    """One delivery, "On another device": the device model's decision (GET
    /v1/deliveries/{seq}/preview) for the virtual device it went to, in another app state, and
    for a default device; nothing is delivered again."""
    server = module_factory()
    token = "e0" * 32
    assert server.put(f"/v1/devices/{token}", {
        "environment": "sandbox", "topic": TOPIC, "appState": "background",
        "categories": [{"identifier": "MSG", "actions": [{"identifier": "like", "title": "Like"}]}]}).status == 201
    severe_console_errors(browser)
    open_console(browser, server)
    assert push_h2(server, {"aps": {"alert": {"title": "Hi", "body": "there"}, "category": "MSG"}},
                   token=token).status == 200
    seq = server.deliveries(token=token)["deliveries"][-1]["seq"]
    row_for(browser, seq).click()
    result = wait(browser).until(EC.presence_of_element_located((By.ID, "what-if-result")))
    wait(browser).until(lambda d: result.get_attribute("data-shown") == "true")
    device = Select(browser.find_element(By.ID, "what-if-device"))
    assert device.first_selected_option.get_attribute("value") == token
    assert "banner" in result.text and "Like" in result.text, result.text

    Select(browser.find_element(By.ID, "what-if-app-state")).select_by_value("foreground")
    wait(browser).until(lambda d: result.get_attribute("data-shown") == "false")
    assert "userNotificationCenter(_:willPresent:withCompletionHandler:)" in result.text, result.text
    browser.save_screenshot(str(tmp_path / "another-device.png"))

    device.select_by_value("")
    wait(browser).until(lambda d: "a default device" in result.text and "Like" not in result.text)
    assert server.get_json(f"/v1/devices/{token}")["appState"] == "background"
    assert len(server.deliveries(token=token)["deliveries"]) == 1
    assert severe_console_errors(browser) == []
