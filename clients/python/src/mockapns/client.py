"""A typed client for the MockAPNs control API (README "Control API", docs/control-api.openapi.json).

Standard library only (urllib). Every method sends and reads JSON; a 4xx or 5xx answer raises
`MockAPNsError` carrying the server's `{"error": ...}` message, except where the status is the
answer itself: `verify` and `teardown_check` return their body on 406 too (`ok` false).
Keyword arguments in snake_case become the API's camelCase names (`push_type` -> `pushType`,
`timeout_ms` -> `timeoutMs`, `from_` -> `from`); camelCase names are passed through.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Iterable, Iterator, Mapping

__all__ = ["MockAPNs", "MockAPNsError"]

JSON = Any

_CONNECTION_ACTIONS = ("goaway", "close", "reset", "blackhole", "drain")


class MockAPNsError(Exception):
    """A control API request answered 4xx/5xx (or could not be made, `status` 0), or a live
    stream answered 200 came to records no longer stored (`status` 200, the gap message as `body`).

    `status` is the HTTP status, `message` the server's `error` text (or the raw body when it
    is not the usual `{"error": ...}` object), `body` the parsed JSON when there was one. Its text
    is `METHOD PATH: STATUS: MESSAGE`, without the status when it is 200 (the request succeeded).
    """

    def __init__(self, method: str, path: str, status: int, message: str, body: JSON = None):
        self.method = method
        self.path = path
        self.status = status
        self.message = message
        self.body = body
        super().__init__(f"{method} {path}: {message}" if status == 200 else f"{method} {path}: {status}: {message}")


def _api_name(name: str) -> str:
    """`push_type` -> `pushType`; `from_` -> `from`; camelCase stays."""
    name = name.rstrip("_")
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _api_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level keys renamed to the API's names; `None` values left out (nested values untouched)."""
    return {_api_name(key): value for key, value in fields.items() if value is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class MockAPNs:
    """The control API of one MockAPNs server.

    `base_url` is the control listener's URL (`http://127.0.0.1:8197` by default, as the server's).
    `token` is sent as `Authorization: Bearer TOKEN`; by default the environment's
    `MOCK_APNS_CONTROL_TOKEN` (README "Security"), none when that is unset. `timeout` is in
    seconds, per request; long polls (`wait_for_deliveries`, `wait_for_events`, `verify` with
    `within_ms`) add their own wait to it.
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8197", *, token: str | None = None,
                 timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else os.environ.get("MOCK_APNS_CONTROL_TOKEN") or None
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"MockAPNs({self.base_url!r})"

    # ---- transport ------------------------------------------------------------------------

    def request(self, method: str, path: str, body: JSON = None, *, query: Mapping[str, Any] | None = None,
                accept: str | None = None, timeout: float | None = None,
                answer_statuses: Iterable[int] = ()) -> tuple[int, JSON | str]:
        """One request: `(status, parsed JSON or text)`.

        `body` (when not None) is sent as `application/json`; `query` values become query
        parameters (names as given; None left out). A status of 400 or more that is not in
        `answer_statuses` raises `MockAPNsError` with the server's message.
        """
        url = self.base_url + path
        if query:
            pairs = [(key, _query_value(value)) for key, value in query.items() if value is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        data = None
        headers = {"accept": accept or "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as answer:
                return answer.status, self._decode(answer.headers.get("content-type", ""), answer.read())
        except urllib.error.HTTPError as error:
            status = error.code
            parsed = self._decode(error.headers.get("content-type", "") if error.headers else "", error.read())
            if status in set(answer_statuses):
                return status, parsed
            if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
                message = parsed["error"]
            elif isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
                message = parsed["message"]
            else:
                message = parsed if isinstance(parsed, str) else json.dumps(parsed)
            raise MockAPNsError(method, path, status, message, parsed if not isinstance(parsed, str) else None) from None
        except urllib.error.URLError as error:
            raise MockAPNsError(method, path, 0, f"cannot reach {self.base_url}: {error.reason}") from None

    @staticmethod
    def _decode(content_type: str, raw: bytes) -> JSON | str:
        text = raw.decode("utf-8", "replace")
        if "json" in content_type or text[:1] in ("{", "["):
            try:
                return json.loads(text)
            except ValueError:
                return text
        return text

    def _json(self, method: str, path: str, body: JSON = None, *, query: Mapping[str, Any] | None = None,
              timeout: float | None = None) -> JSON:
        return self.request(method, path, body, query=query, timeout=timeout)[1]

    @staticmethod
    def _segment(value: Any) -> str:
        return urllib.parse.quote(str(value), safe="")

    # ---- server ---------------------------------------------------------------------------

    def health(self) -> dict:
        """`GET /v1/health`: `{"status":"ok","version",...,"listeners":[...],"workers":N}`."""
        return self._json("GET", "/v1/health")

    def stats(self) -> dict:
        """`GET /v1/stats`: counters by status and reason, connections, records, events."""
        return self._json("GET", "/v1/stats")

    def metrics(self, *, openmetrics: bool = False) -> str:
        """`GET /metrics`: the Prometheus text format (OpenMetrics 1.0 with `openmetrics=True`)."""
        accept = "application/openmetrics-text" if openmetrics else "text/plain"
        return self.request("GET", "/metrics", accept=accept)[1]

    # ---- deliveries -----------------------------------------------------------------------

    def deliveries(self, **filters: Any) -> dict:
        """`GET /v1/deliveries` with delivery filters (`token`, `topic`, `push_type`, `status`,
        `reason`, `apns_id`, `collapse_id`, `environment`, `unanswered`, `after`, `limit`, ...):
        `{"deliveries":[...],"evicted":N,"lastSeq":N,"more":bool}`."""
        return self._json("GET", "/v1/deliveries", query=_api_fields(filters))

    def last_seq(self) -> int:
        """The newest record's sequence number (0 before any): scope later checks with `after`."""
        return int(self.deliveries(limit=0)["lastSeq"])

    def delivery(self, seq: int) -> dict:
        """`GET /v1/deliveries/{seq}`: one record (404 raises)."""
        return self._json("GET", f"/v1/deliveries/{int(seq)}")

    def delivery_apns_file(self, seq: int) -> dict:
        """`GET /v1/deliveries/{seq}/apns`: the record as a Simulator `.apns` file."""
        return self._json("GET", f"/v1/deliveries/{int(seq)}/apns")

    def wait_for_deliveries(self, count: int = 1, *, timeout_ms: int = 5000, **filters: Any) -> dict:
        """`GET /v1/deliveries/wait`: long poll until `count` matching records exist or `timeout_ms`
        passes: `{"complete":bool,"count":N,"matched":M,"deliveries":[...],...}`."""
        query = {"count": count, "timeoutMs": timeout_ms, **_api_fields(filters)}
        return self._json("GET", "/v1/deliveries/wait", query=query, timeout=self.timeout + timeout_ms / 1000)

    def stream_deliveries(self, *, after: int | None = None, reconnect: bool = True,
                          on_gap: Callable[[dict], None] | None = None, idle_timeout: float = 40.0,
                          **filters: Any) -> Iterator[dict]:
        """`GET /v1/deliveries/stream` (README "Live stream") as an iterator of records, oldest
        first: those stored after `after` (every stored one without it), then new ones as they
        land, for as long as the caller iterates. Read as NDJSON.

        With `reconnect` (the default), a dropped connection, a silent one (no byte, not even a
        heartbeat, for `idle_timeout` seconds) or a cutoff for reading too slowly is followed by a
        new stream with `after` set to the position reached: no record is missed or repeated.
        Records the server no longer held when the stream came to them are a gap: passed to
        `on_gap` (`{"gap":true,"from":N,"to":M,"reason":...}`), or, without it, raised as
        `MockAPNsError`. The iterator ends when the server stops (its `end` message) or, without
        `reconnect`, when the stream ends for any reason.
        """
        return self._stream("/v1/deliveries/stream", after, reconnect, on_gap, idle_timeout, filters)

    def stream_events(self, *, after: int | None = None, reconnect: bool = True,
                      on_gap: Callable[[dict], None] | None = None, idle_timeout: float = 40.0,
                      **filters: Any) -> Iterator[dict]:
        """`GET /v1/events/stream`: connection events as they are recorded, with the filters of
        `events` and the resume rules of `stream_deliveries`."""
        return self._stream("/v1/events/stream", after, reconnect, on_gap, idle_timeout, filters)

    def _stream(self, path: str, after: int | None, reconnect: bool, on_gap: Callable[[dict], None] | None,
                idle_timeout: float, filters: Mapping[str, Any]) -> Iterator[dict]:
        position = after
        while True:
            query = {**_api_fields(filters), "format": "ndjson"}
            if position is not None:
                query["after"] = position
            url = self.base_url + path + "?" + urllib.parse.urlencode(
                [(key, _query_value(value)) for key, value in query.items() if value is not None])
            headers = {"accept": "application/x-ndjson"}
            if self.token:
                headers["authorization"] = f"Bearer {self.token}"
            try:
                answer = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=idle_timeout)
            except urllib.error.HTTPError as error:
                parsed = self._decode(error.headers.get("content-type", "") if error.headers else "", error.read())
                message = parsed.get("error", str(parsed)) if isinstance(parsed, dict) else str(parsed)
                raise MockAPNsError("GET", path, error.code, message, parsed if isinstance(parsed, dict) else None) \
                    from None
            except (urllib.error.URLError, OSError) as error:
                raise MockAPNsError("GET", path, 0, f"cannot reach {self.base_url}: {error}") from None
            ended = False
            try:
                with answer:
                    for raw in answer:
                        line = raw.strip()
                        if not line:
                            continue
                        message = json.loads(line)
                        if "seq" in message:
                            position = int(message["seq"])
                            yield message
                        elif "gap" in message:
                            position = int(message["to"])
                            if on_gap is None:
                                raise MockAPNsError(
                                    "GET", path, 200,
                                    f"records {message['from']} to {message['to']} were no longer stored when the "
                                    f"stream came to them ({message.get('reason')})", message)
                            on_gap(message)
                        elif "end" in message:
                            ended = True
                            break
                        elif ("cutoff" in message or "heartbeat" in message) and (
                                position is not None or message.get("lastSeq")):
                            position = max(position or 0, int(message.get("lastSeq", 0)))
            except (OSError, ValueError):
                pass  # dropped or silent: reconnect below
            if ended or not reconnect:
                return

    def clear_deliveries(self) -> dict:
        """`DELETE /v1/deliveries`: `{"cleared":N,"lastSeq":N}` (sequence numbers keep counting)."""
        return self._json("DELETE", "/v1/deliveries")

    def delivery_log(self, notification_id: str) -> dict:
        """`GET /v1/delivery-log/{id}` by `apns-unique-id` or `apns-id`."""
        return self._json("GET", f"/v1/delivery-log/{self._segment(notification_id)}")

    def delivery_metrics(self, *, from_: str | int | None = None, to: str | int | None = None) -> dict:
        """`GET /v1/delivery-metrics?from=&to=` (ISO 8601 or milliseconds, server clock)."""
        return self._json("GET", "/v1/delivery-metrics", query={"from": from_, "to": to})

    def feedback(self) -> dict:
        """`GET /v1/feedback`: what the legacy feedback service's next read would send."""
        return self._json("GET", "/v1/feedback")

    # ---- verification ---------------------------------------------------------------------

    def verify(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`POST /v1/verify` (docs/testing.md): filters (`token`, `topic`, `push_type`, `status`,
        `reason`, `apns_id`, `collapse_id`, `environment`, `kind`, `channel_id`, `after`),
        `payload` (dotted paths to values), one count (`exactly`, `at_least`, `at_most`,
        `never=True`) and `within_ms`. Returns the answer, 200 or 406 alike: `{"ok", "message",
        "expected", "matched", "seqs", "nearMisses", ...}`; other errors raise."""
        body = _api_fields(expectation)
        if payload is not None:
            body["payload"] = dict(payload)
        within = float(body.get("withinMs", 0)) / 1000
        return self.request("POST", "/v1/verify", body, timeout=self.timeout + within, answer_statuses=(406,))[1]

    def assert_delivered(self, payload: Mapping[str, Any] | None = None, **expectation: Any) -> dict:
        """`verify`, raising `AssertionError` with the server's message (the closest records and
        their differing fields) when it answers 406; returns the 200 answer. Hidden from pytest's
        traceback (`__tracebackhide__`): a failure points at the test's line."""
        __tracebackhide__ = True
        answer = self.verify(payload, **expectation)
        if not answer.get("ok"):
            raise AssertionError(answer.get("message", json.dumps(answer)))
        return answer

    def teardown_check(self, after: int | None = None) -> dict:
        """`GET /v1/verify/teardown?after=SEQ`: `ok` true (200) when no push after `after` was
        rejected except by a fault rule and every stream got an answer; otherwise (406) `ok`
        false with `message`, `rejected` and `unanswered`."""
        return self.request("GET", "/v1/verify/teardown", query={"after": after}, answer_statuses=(406,))[1]

    # ---- devices --------------------------------------------------------------------------

    def devices(self, *, limit: int | None = None, after: str | None = None) -> dict:
        """`GET /v1/devices`: `{"devices":[...],"count":N,"total":N,"more":bool}` in token order."""
        return self._json("GET", "/v1/devices", query={"limit": limit, "after": after})

    def clear_devices(self) -> JSON:
        """`DELETE /v1/devices`: forget every registered device."""
        return self._json("DELETE", "/v1/devices")

    def device(self, token: str) -> dict:
        """`GET /v1/devices/{token}` (404 raises)."""
        return self._json("GET", f"/v1/devices/{self._segment(token)}")

    def put_device(self, token: str, **fields: Any) -> dict:
        """`PUT /v1/devices/{token}`: `environment` (required), `topic`, `unregistered_at`,
        `expired`, and the virtual-device fields (`virtual`, `connectivity`, `app_state`, ...)."""
        return self._json("PUT", f"/v1/devices/{self._segment(token)}", _api_fields(fields))

    def patch_device(self, token: str, **fields: Any) -> dict:
        """`PATCH /v1/devices/{token}`: change a virtual device (`connectivity`, `app_state`, ...)."""
        return self._json("PATCH", f"/v1/devices/{self._segment(token)}", _api_fields(fields))

    def delete_device(self, token: str) -> JSON:
        """`DELETE /v1/devices/{token}`."""
        return self._json("DELETE", f"/v1/devices/{self._segment(token)}")

    def interact(self, token: str, notification: int, type: str = "tap", **fields: Any) -> dict:
        """`POST /v1/devices/{token}/interactions`: the user taps (`type="tap"`), dismisses, or
        takes an `action` (with `text`) on shown notification `notification` (its seq)."""
        body = {"notification": notification, "type": type, **_api_fields(fields)}
        return self._json("POST", f"/v1/devices/{self._segment(token)}/interactions", body)

    # ---- faults ---------------------------------------------------------------------------

    def faults(self) -> dict:
        """`GET /v1/faults`: `{"faults":[...], ...}` with each rule's `fired` count."""
        return self._json("GET", "/v1/faults")

    def fault(self, rule_id: str) -> dict:
        """`GET /v1/faults/{id}`."""
        return self._json("GET", f"/v1/faults/{self._segment(rule_id)}")

    def add_faults(self, rules: JSON) -> JSON:
        """`POST /v1/faults`: a rule, a list of rules, or `{"scenario": ..., "parameters": {...}}`
        (README "Fault injection"), sent as given."""
        return self._json("POST", "/v1/faults", rules)

    def delete_fault(self, rule_id: str) -> JSON:
        """`DELETE /v1/faults/{id}`."""
        return self._json("DELETE", f"/v1/faults/{self._segment(rule_id)}")

    def clear_faults(self) -> JSON:
        """`DELETE /v1/faults`: every rule."""
        return self._json("DELETE", "/v1/faults")

    # ---- connections and listeners --------------------------------------------------------

    def connections(self) -> dict:
        """`GET /v1/connections`: the live APNs connections."""
        return self._json("GET", "/v1/connections")

    def connection_action(self, connection_id: int, action: str, body: JSON = None) -> JSON:
        """`POST /v1/connections/{id}/{action}`, `action` one of goaway, close, reset, blackhole,
        drain; `body` e.g. `{"errorCode":"NO_ERROR","reason":"Shutdown"}` for goaway."""
        if action not in _CONNECTION_ACTIONS:
            raise ValueError(f"action must be one of {', '.join(_CONNECTION_ACTIONS)}, not {action!r}")
        return self._json("POST", f"/v1/connections/{int(connection_id)}/{action}", body)

    def all_connections_action(self, action: str, body: JSON = None, *, listener: str | None = None) -> dict:
        """`POST /v1/connections/{action}[?listener=NAME]` on every open connection:
        `{"action": ..., "ids": [...]}`."""
        if action not in _CONNECTION_ACTIONS:
            raise ValueError(f"action must be one of {', '.join(_CONNECTION_ACTIONS)}, not {action!r}")
        return self._json("POST", f"/v1/connections/{action}", body, query={"listener": listener})

    def goaway(self, connection_id: int, **fields: Any) -> JSON:
        """GOAWAY on one connection (`error_code`, `reason`, `close_after_ms`)."""
        return self.connection_action(connection_id, "goaway", _api_fields(fields) or None)

    def close(self, connection_id: int) -> JSON:
        """FIN one connection."""
        return self.connection_action(connection_id, "close")

    def reset(self, connection_id: int) -> JSON:
        """TCP RST one connection."""
        return self.connection_action(connection_id, "reset")

    def blackhole(self, connection_id: int) -> JSON:
        """Answer nothing more on one connection, keeping it open."""
        return self.connection_action(connection_id, "blackhole")

    def drain(self, connection_id: int, **fields: Any) -> JSON:
        """Drain one connection gracefully (`reason`, `max_ms`)."""
        return self.connection_action(connection_id, "drain", _api_fields(fields) or None)

    def listeners(self) -> dict:
        """`GET /v1/listeners`: each listener's conditions for new connections."""
        return self._json("GET", "/v1/listeners")

    def set_listener_conditions(self, name: str, **conditions: Any) -> JSON:
        """`PUT /v1/listeners/{name}/conditions`: `handshake_delay_ms`, `silent`, `refuse_ms`."""
        return self._json("PUT", f"/v1/listeners/{self._segment(name)}/conditions", _api_fields(conditions))

    # ---- events, clock, channels ----------------------------------------------------------

    def events(self, **filters: Any) -> dict:
        """`GET /v1/events`: connection events `{"events":[...],"evicted":N,"lastSeq":N,"more":bool}`."""
        return self._json("GET", "/v1/events", query=_api_fields(filters))

    def wait_for_events(self, count: int = 1, *, timeout_ms: int = 5000, **filters: Any) -> dict:
        """`GET /v1/events/wait`: as `wait_for_deliveries`, for connection events."""
        query = {"count": count, "timeoutMs": timeout_ms, **_api_fields(filters)}
        return self._json("GET", "/v1/events/wait", query=query, timeout=self.timeout + timeout_ms / 1000)

    def clear_events(self) -> JSON:
        """`DELETE /v1/events`."""
        return self._json("DELETE", "/v1/events")

    def clock(self) -> dict:
        """`GET /v1/clock`: `{"offsetSeconds":N,"now":"..."}`."""
        return self._json("GET", "/v1/clock")

    def set_clock(self, offset_seconds: float) -> dict:
        """`PUT /v1/clock`: move the server clock `offset_seconds` from real time."""
        return self._json("PUT", "/v1/clock", {"offsetSeconds": offset_seconds})

    def channels(self, **filters: Any) -> dict:
        """`GET /v1/channels` (`bundle_id`, `environment`)."""
        return self._json("GET", "/v1/channels", query=_api_fields(filters))

    def create_channel(self, **fields: Any) -> dict:
        """`POST /v1/channels` on a test's behalf (docs/broadcast.md)."""
        return self._json("POST", "/v1/channels", _api_fields(fields))

    def delete_channel(self, channel_id: str) -> JSON:
        """`DELETE /v1/channels/{id}`."""
        return self._json("DELETE", f"/v1/channels/{self._segment(channel_id)}")

    # ---- isolated gateways (docs/testing.md "Isolated gateways") ----------------------------

    def create_gateway(self, *, name: str | None = None, port: int | None = None,
                       environment: str | None = None, auth: str | None = None,
                       ttl_seconds: int | None = None, max_records: int | None = None,
                       devices: list | None = None, faults: JSON = None) -> dict:
        """`POST /v1/gateways`: a gateway of its own (a new APNs listener, its own records, events,
        rules, registry, devices and clock); `{"id","port","url","controlBase",...}`. Every
        argument is optional: `port` 0 picks a free one, `ttl_seconds` (default 600, 0 = never)
        deletes it once untouched that long. Pass the answer to `for_gateway` for its client."""
        return self._json("POST", "/v1/gateways", _api_fields({
            "name": name, "port": port, "environment": environment, "auth": auth,
            "ttl_seconds": ttl_seconds, "max_records": max_records, "devices": devices, "faults": faults}))

    def gateways(self) -> dict:
        """`GET /v1/gateways`: `{"gateways":[...],"count","max"}`."""
        return self._json("GET", "/v1/gateways")

    def gateway(self, gateway_id: str) -> dict:
        """`GET /v1/gateways/{id}`."""
        return self._json("GET", f"/v1/gateways/{self._segment(gateway_id)}")

    def delete_gateway(self, gateway_id: str) -> JSON:
        """`DELETE /v1/gateways/{id}`: its port closed, its connections sent GOAWAY, its waits answered."""
        return self._json("DELETE", f"/v1/gateways/{self._segment(gateway_id)}")

    def for_gateway(self, gateway: Mapping[str, Any] | str) -> "MockAPNs":
        """A client of one gateway's control API (every method, under its `controlBase`): give
        `create_gateway`'s answer or an id. Same token and timeout."""
        base = gateway["controlBase"] if isinstance(gateway, Mapping) else f"/v1/gateways/{self._segment(gateway)}"
        return MockAPNs(self.base_url + base, token=self.token or "", timeout=self.timeout)
