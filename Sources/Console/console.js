// MockAPNs console (docs/console.md): plain JavaScript, no framework, no build step.
// It uses only the control API's JSON endpoints, from the page's own origin. Recorded data is
// attacker-controlled (any sender can push anything): it is only ever put in the page as text
// (textContent, text nodes, form values), never as HTML.
"use strict";

(function () {
  const POLL_MS = 500;        // how often the deliveries are polled
  const PAGE = 500;           // records asked for per poll
  const KEEP = 2000;          // records kept in the page (the newest)
  const ROWS = 300;           // table rows drawn at most (the newest matching)
  const PAYLOAD_LIMIT = 4096; // bytes; VoIP pushes 5120
  const VOIP_PAYLOAD_LIMIT = 5120;

  // ---------------------------------------------------------------- DOM helpers (text only)

  /** An element with attributes and children; strings become text nodes, never HTML. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else if (child instanceof Node) node.appendChild(child);
      else node.appendChild(document.createTextNode(String(child)));
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- the control API

  let bearer = sessionStorage.getItem("mock-apns-control-token") || "";
  // The gateway looked at: "" the default one, else an isolated gateway's controlBase
  // (`/v1/gateways/g1`); every control path is asked under it.
  let base = "";

  class APIError extends Error {
    constructor(status, message, body) {
      super(message);
      this.status = status;
      this.body = body;
    }
  }

  /** One control API request; resolves to the parsed JSON, rejects with APIError. */
  async function api(method, path, body) {
    return rootAPI(method, base + path, body);
  }

  /** A request to the control API itself, whatever gateway is looked at (`GET /v1/gateways`). */
  async function rootAPI(method, path, body) {
    const headers = {};
    if (bearer) headers["authorization"] = "Bearer " + bearer;
    const init = { method, headers, cache: "no-store" };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new APIError(0, "the control API cannot be reached (" + e.message + ")");
    }
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (response.status === 401) askForToken();
    if (!response.ok) {
      const message = json && typeof json.error === "string" ? json.error : "HTTP " + response.status;
      throw new APIError(response.status, message, json);
    }
    return json;
  }

  function askForToken(message) {
    $("token-form").hidden = false;
    $("token-error").textContent = message || (bearer ? "the token was refused" : "");
  }

  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    bearer = $("token-input").value.trim();
    sessionStorage.setItem("mock-apns-control-token", bearer);
    $("token-form").hidden = true;
    restartDeliveries();
  });

  function setConnectionState(text, kind) {
    const pill = $("connection-state");
    pill.textContent = text;
    pill.className = "pill " + (kind || "");
  }

  // ---------------------------------------------------------------- views

  const loaders = {};

  function show(view) {
    for (const tab of document.querySelectorAll(".tab")) {
      tab.setAttribute("aria-pressed", String(tab.dataset.view === view));
    }
    for (const section of document.querySelectorAll(".view")) {
      section.hidden = section.id !== "view-" + view;
    }
    if (loaders[view]) loaders[view]();
  }

  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => show(tab.dataset.view));
  }

  // ---------------------------------------------------------------- formatting

  function shortToken(token) {
    if (!token) return "—";
    return token.length > 14 ? token.slice(0, 8) + "…" + token.slice(-4) : token;
  }

  // Local time as 24-hour HH:MM:SS.mmm, whatever the browser's locale (never "08:16:49 PM.058").
  function timeOf(iso) {
    const date = new Date(iso);
    if (isNaN(date)) return iso || "";
    const two = (n) => String(n).padStart(2, "0");
    return two(date.getHours()) + ":" + two(date.getMinutes()) + ":" + two(date.getSeconds())
      + "." + String(date.getMilliseconds()).padStart(3, "0");
  }

  function statusText(record) {
    if (record.status !== null && record.status !== undefined) return String(record.status);
    return record.unanswered ? "no answer" : "pending";
  }

  function statusClass(record) {
    if (record.status === 200) return "status-ok";
    if (record.status) return "status-bad";
    return "status-none";
  }

  function header(record, name) {
    const found = (record.headers || []).find((h) => h.name.toLowerCase() === name);
    return found ? found.value : null;
  }

  function payloadText(record) {
    if (record.payload !== null && record.payload !== undefined) return JSON.stringify(record.payload);
    return record.payloadText || "";
  }

  // ---------------------------------------------------------------- deliveries: the source
  // The one place that knows how new records arrive: the live stream `GET /v1/deliveries/stream`
  // (Server-Sent Events, README "Live stream"), or polling `GET /v1/deliveries?after=` when the
  // stream is refused (503: too many streams open) or a control token is needed (an EventSource
  // cannot send `authorization`). It calls `onRecords(records)` with new records oldest first,
  // `onReset()` when the store was cleared or the server restarted, `onNotice(text)` for a `gap`
  // or `cutoff`, and `onState(text, kind)`; it returns a function that stops it.
  function subscribeDeliveries(after, onRecords, onReset, onState, onNotice) {
    let stopped = false;
    let stopCurrent = () => {};
    const source = { lastSeq: after };
    function useStream() {
      window.__consoleDeliverySource = "stream";
      stopCurrent = streamDeliveries(source, onRecords, onReset, onState, onNotice, () => {
        if (stopped) return;
        // Refused: poll, and try the stream again in 30 s.
        onNotice("the live stream was refused (too many streams open?): polling instead");
        usePolling(30000);
      });
    }
    function usePolling(forMs) {
      window.__consoleDeliverySource = "polling";
      const stopPoll = pollDeliveries(source, onRecords, onReset, onState);
      let timer = forMs ? setTimeout(() => { stopPoll(); if (!stopped) useStream(); }, forMs) : null;
      stopCurrent = () => { clearTimeout(timer); stopPoll(); };
    }
    if (bearer || typeof EventSource === "undefined") usePolling(0); else useStream();
    return () => { stopped = true; stopCurrent(); };
  }

  /** The stream; `refused()` when it cannot be opened (a non-200 answer closes an EventSource). */
  function streamDeliveries(source, onRecords, onReset, onState, onNotice, refused) {
    let es = null;
    let stopped = false;
    let lostAt = 0;
    let pending = [];
    let flushTimer = null;
    function flush() {
      flushTimer = null;
      const batch = pending;
      pending = [];
      if (batch.length) onRecords(batch);
    }
    function open(after) {
      es = new EventSource(base + "/v1/deliveries/stream?after=" + after);
      es.addEventListener("open", async () => {
        onState("live", "live");
        if (!lostAt) return;
        lostAt = 0;
        // Back after a drop: a lower lastSeq means a new server (or a cleared store).
        try {
          const stats = await api("GET", "/v1/stats");
          if (!stopped && stats.lastSeq < source.lastSeq) {
            es.close();
            source.lastSeq = 0;
            onReset();
            open(0);
          }
        } catch (e) { /* the stream says */ }
      });
      es.addEventListener("delivery", (event) => {
        const record = JSON.parse(event.data);
        if (record.seq <= source.lastSeq) return;
        source.lastSeq = record.seq;
        pending.push(record);
        if (!flushTimer) flushTimer = setTimeout(flush, 50);
      });
      es.addEventListener("gap", (event) => {
        const gap = JSON.parse(event.data);
        onNotice("records " + gap.from + "–" + gap.to + " were gone before the stream sent them (" + gap.reason + ")");
        if (gap.to > source.lastSeq) source.lastSeq = gap.to;
      });
      es.addEventListener("cutoff", (event) => {
        const cutoff = JSON.parse(event.data);
        onNotice("the stream was cut off at seq " + cutoff.lastSeq + " (" + cutoff.reason + "); resuming");
      });
      es.addEventListener("end", (event) => {
        const end = JSON.parse(event.data);
        onNotice("the stream ended (" + end.reason + ")");
      });
      es.addEventListener("error", () => {
        if (stopped) return;
        if (es.readyState === EventSource.CLOSED) {
          // Refused (503 too many streams, 401), at once or after a restart: poll for a
          // while (the caller retries the stream).
          es.close();
          refused();
          return;
        }
        lostAt = lostAt || Date.now();
        onState("reconnecting…", "down");
      });
    }
    open(source.lastSeq);
    return () => { stopped = true; clearTimeout(flushTimer); if (es) es.close(); };
  }

  /** Polls `GET /v1/deliveries?after=` every 500 ms (at once while far behind). */
  function pollDeliveries(source, onRecords, onReset, onState) {
    let stopped = false;
    let timer = null;
    async function poll() {
      if (stopped) return;
      try {
        const answer = await api("GET", "/v1/deliveries?after=" + source.lastSeq + "&limit=" + PAGE);
        if (stopped) return;
        if (answer.lastSeq < source.lastSeq) {
          // Cleared, or a new server: start over from what it holds.
          source.lastSeq = 0;
          onReset();
          timer = setTimeout(poll, 0);
          return;
        }
        if (answer.deliveries.length > 0) {
          source.lastSeq = answer.deliveries[answer.deliveries.length - 1].seq;
          onRecords(answer.deliveries);
        }
        if (answer.more && answer.lastSeq - source.lastSeq > PAGE) {
          // Far behind (a load test): skip to the newest page rather than read every record;
          // the page keeps only the newest anyway, and the server renders one page per poll.
          source.lastSeq = answer.lastSeq - PAGE;
        }
        onState("live", "live");
        timer = setTimeout(poll, POLL_MS);
      } catch (e) {
        if (stopped) return;
        onState(e.status === 401 ? "token needed" : "reconnecting…", "down");
        timer = setTimeout(poll, e.status === 401 ? 2000 : 1000);
      }
    }
    poll();
    return () => { stopped = true; clearTimeout(timer); };
  }

  // ---------------------------------------------------------------- deliveries: the list

  let records = [];          // newest first
  let selectedSeq = null;
  let stopDeliveries = null;
  const seenTopics = new Set();
  const seenPushTypes = new Set();

  async function restartDeliveries() {
    if (stopDeliveries) stopDeliveries();
    records = [];
    renderRows();
    let after = 0;
    try {
      const stats = await api("GET", "/v1/stats");
      after = Math.max(0, stats.lastSeq - KEEP);
    } catch (e) {
      after = 0;
    }
    rate.clear();
    stopDeliveries = subscribeDeliveries(after, addRecords, () => { records = []; rate.clear(); renderRows(); }, setConnectionState,
      (text) => { $("stream-notice").textContent = text; });
  }

  function addRecords(batch) {
    countRate(batch);
    for (const record of batch) {
      if (record.topic && !seenTopics.has(record.topic)) {
        seenTopics.add(record.topic);
        $("topics").appendChild(el("option", { value: record.topic }));
      }
      const type = record.pushType || record.inferredPushType;
      if (type && !seenPushTypes.has(type)) {
        seenPushTypes.add(type);
        $("filter-push-type").appendChild(el("option", { value: type }, type));
      }
    }
    records = batch.slice().reverse().concat(records).slice(0, KEEP);
    renderRows();
  }

  function matchesFilters(record) {
    const status = $("filter-status").value;
    if (status === "200" && record.status !== 200) return false;
    if (status === "rejected" && !(record.status >= 400)) return false;
    if (status === "unanswered" && record.status !== null) return false;
    const topic = $("filter-topic").value.trim();
    if (topic && record.topic !== topic) return false;
    const type = $("filter-push-type").value;
    if (type && (record.pushType || record.inferredPushType) !== type) return false;
    const token = $("filter-token").value.trim().toLowerCase();
    if (token && !(record.deviceToken || "").includes(token)) return false;
    const search = $("filter-search").value.trim().toLowerCase();
    if (search && !payloadText(record).toLowerCase().includes(search)) return false;
    return true;
  }

  function renderRows() {
    const body = $("delivery-rows");
    const shown = records.filter(matchesFilters);
    const rows = shown.slice(0, ROWS).map((record) => {
      const row = el("tr", {
        tabindex: "0", "data-seq": record.seq, class: record.seq === selectedSeq ? "selected" : null,
        onclick: () => select(record.seq),
        onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(record.seq); } },
      },
      el("td", {}, String(record.seq)),
      el("td", {}, timeOf(record.receivedAt)),
      el("td", { class: statusClass(record) }, statusText(record)),
      el("td", {}, record.reason || record.unanswered || ""),
      el("td", { class: "mono", title: record.deviceToken || "" }, shortToken(record.deviceToken || record.channelId)),
      el("td", {}, record.topic || ""),
      el("td", {}, record.pushType || (record.inferredPushType ? "(" + record.inferredPushType + ")" : "")),
      el("td", {}, record.priority === null ? "" : String(record.priority)),
      el("td", {}, record.fault ? record.fault.ruleId : ""),
      el("td", { class: "lint" }, record.lints.length ? String(record.lints.length) : ""));
      return row;
    });
    clear(body);
    append(body, rows);
    $("no-deliveries").hidden = records.length > 0;
    const drawn = Math.min(shown.length, ROWS);
    $("delivery-count").textContent = (drawn === records.length ? drawn : drawn + " of " + records.length) + " shown"
      + (shown.length > ROWS ? " (the newest " + ROWS + " of " + shown.length + " matching)" : "");
  }

  for (const id of ["filter-status", "filter-topic", "filter-push-type", "filter-token", "filter-search"]) {
    $(id).addEventListener("input", renderRows);
    $(id).addEventListener("change", renderRows);
  }
  $("filters").addEventListener("submit", (event) => event.preventDefault());

  // ---------------------------------------------------------------- one delivery

  async function select(seq) {
    selectedSeq = seq;
    renderRows();
    let record = records.find((r) => r.seq === seq);
    try {
      record = await api("GET", "/v1/deliveries/" + seq);
    } catch (e) {
      if (!record) return;
    }
    let log = null;
    const id = record.uniqueId || record.apnsId;
    if (record.status === 200 && id && !record.lifecycle) {
      try { log = await api("GET", "/v1/delivery-log/" + encodeURIComponent(id)); } catch (e) { log = null; }
    }
    if (selectedSeq !== seq) return;
    renderDetail(record, log);
  }

  $("detail-close").addEventListener("click", () => {
    selectedSeq = null;
    $("detail").hidden = true;
    renderRows();
  });

  function kv(pairs) {
    return el("dl", { class: "kv" }, pairs.filter((p) => p[1] !== undefined).map(([k, v]) => [
      el("dt", {}, k), el("dd", {}, v === null || v === "" ? "—" : (v instanceof Node ? v : String(v))),
    ]));
  }

  /** The payload paths the lints point at: the dotted paths they name (`aps.badge`), the keys
   *  of "aps holds keys Apple does not define (a, b)", and the visible keys of a background push. */
  function lintKeys(lints) {
    const paths = new Set();
    for (const lint of lints) {
      for (const match of lint.matchAll(/\baps(?:\.[A-Za-z0-9_-]+)+/g)) paths.add(match[0]);
      const unknown = lint.match(/^aps holds keys Apple does not define \(([^)]*)\)/);
      if (unknown) for (const key of unknown[1].split(", ")) paths.add("aps." + key);
      if (lint.startsWith("background push with alert, badge or sound")) {
        for (const key of ["alert", "badge", "sound"]) paths.add("aps." + key);
      }
    }
    return { has: (path) => paths.has(path) };
  }

  /** The value pretty-printed as text nodes, the keys the lints point at marked. */
  function prettyJSON(value, marked, indent, path) {
    indent = indent || "";
    path = path || "";
    const inner = indent + "  ";
    if (Array.isArray(value)) {
      if (value.length === 0) return ["[]"];
      const parts = ["[\n"];
      value.forEach((item, i) => {
        parts.push(inner, ...prettyJSON(item, marked, inner, path + "[" + i + "]"), i < value.length - 1 ? ",\n" : "\n");
      });
      parts.push(indent + "]");
      return parts;
    }
    if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 0) return ["{}"];
      const parts = ["{\n"];
      keys.forEach((key, i) => {
        const name = JSON.stringify(key);
        const keyPath = path ? path + "." + key : key;
        parts.push(inner, marked.has(keyPath) ? el("mark", { class: "lint-key", title: "a lint points here" }, name) : name, ": ");
        parts.push(...prettyJSON(value[key], marked, inner, keyPath), i < keys.length - 1 ? ",\n" : "\n");
      });
      parts.push(indent + "}");
      return parts;
    }
    return [JSON.stringify(value)];
  }

  function renderDetail(record, log) {
    $("detail").hidden = false;
    $("detail-title").textContent = "Delivery " + record.seq;
    renderPreview($("preview"), record);
    if (record.status === 200 && record.deviceToken) $("preview").appendChild(whatIf(record));
    const body = clear($("detail-body"));
    append(body, [
      el("h3", {}, "Verdict"),
      kv([
        ["status", statusText(record)], ["reason", record.reason], ["unanswered", record.unanswered || null],
        ["apns-id", record.apnsId], ["unique id", record.uniqueId], ["timestamp", record.timestamp],
        ["received", record.receivedAt], ["environment", record.environment], ["kind", record.kind],
        ["token", record.deviceToken], ["topic", record.topic], ["push type", record.pushType],
        ["inferred push type", record.inferredPushType], ["priority", record.priority],
        ["expiration", record.expiration], ["collapse id", record.collapseId],
      ]),
      el("h3", {}, "Fault"),
      record.fault ? kv([["rule", record.fault.ruleId], ["action", record.fault.action], ["what it did", record.fault.description]])
        : el("p", { class: "muted" }, "No fault rule touched it."),
      el("h3", {}, "Answer"),
      el("pre", {}, answerText(record)),
      el("h3", {}, "Lints"),
      record.lints.length ? el("ul", {}, record.lints.map((l) => el("li", { class: "lint" }, l)))
        : el("p", { class: "muted" }, "None."),
      el("h3", {}, "Payload (" + record.payloadBytes + " bytes)"),
      record.payload !== null
        ? el("pre", { class: "payload" }, prettyJSON(record.payload, lintKeys(record.lints)))
        : el("pre", { class: "payload" }, record.payloadText || "(empty)"),
      record.payloadError ? el("p", { class: "error" }, record.payloadError) : null,
      el("h3", {}, "Request headers"),
      el("pre", {}, [record.method + " " + record.path + "\n"].concat(
        (record.headers || []).map((h) => h.name + ": " + h.value + "\n"))),
      el("h3", {}, "Identity"),
      record.identity ? kv(Object.entries(record.identity).map(([k, v]) => [k, v === null ? null : typeof v === "object" ? JSON.stringify(v) : v]))
        : el("p", { class: "muted" }, "None."),
      record.providerToken ? el("pre", {}, JSON.stringify(record.providerToken, null, 2)) : null,
      el("h3", {}, "Connection"),
      kv([["listener", record.listener], ["connection", record.connectionId], ["stream", record.streamId]]),
      timeline(record, log),
      el("h3", {}, "Copy"),
      el("div", { class: "buttons" },
        el("button", { type: "button", onclick: () => copyText(curlCommand(fromRecord(record))) }, "Copy as curl"),
        el("button", { type: "button", onclick: () => copyText(cliCommand(fromRecord(record))) }, "Copy as mock-apns send"),
        el("button", { type: "button", onclick: () => { loadCompose(fromRecord(record)); show("compose"); } }, "Edit in Compose")),
    ]);
  }

  function answerText(record) {
    if (record.status === null) return record.unanswered ? "no answer: " + record.unanswered : "pending (no answer yet)";
    const lines = [":status: " + record.status, "apns-id: " + record.apnsId];
    if (record.uniqueId && record.status === 200) lines.push("apns-unique-id: " + record.uniqueId);
    if (record.reason) {
      const body = { reason: record.reason };
      if (record.timestamp) body.timestamp = record.timestamp;
      lines.push("", JSON.stringify(body));
    }
    return lines.join("\n");
  }

  function timeline(record, log) {
    let events = record.lifecycle;
    if (!events && log && Array.isArray(log.notifications) && log.notifications.length) {
      events = log.notifications[0].history || log.notifications[0].lifecycle;
    }
    if (!Array.isArray(events) || events.length === 0) return null;
    return [el("h3", {}, "Device lifecycle"),
      el("ol", { class: "timeline" }, events.map((e) => el("li", {}, timeOf(e.at) + "  " + (e.state || e.kind)
        + (e.reason ? " (" + e.reason + ")" : "")))),
      record.device && record.device.callbacks && record.device.callbacks.length
        ? el("p", {}, "App callbacks: " + record.device.callbacks.map((c) => c.name).join(", ")) : null];
  }

  // ---------------------------------------------------------------- what the user would see

  /** The app name a topic suggests: its last component, the push-type suffixes removed. */
  function appName(topic) {
    if (!topic) return "App";
    let name = topic.replace(/\.(voip|complication|push-type\.[a-z]+)$/, "");
    name = name.split(".").pop() || name;
    return name.charAt(0).toUpperCase() + name.slice(1);
  }

  function alertParts(aps) {
    const alert = aps.alert;
    if (typeof alert === "string") return { title: null, subtitle: null, body: alert };
    if (alert && typeof alert === "object") {
      const loc = (key, args) => alert[key] ? "[" + alert[key] + (Array.isArray(alert[args]) ? ": " + alert[args].join(", ") : "") + "]" : null;
      return {
        title: typeof alert.title === "string" ? alert.title : loc("title-loc-key", "title-loc-args"),
        subtitle: typeof alert.subtitle === "string" ? alert.subtitle : loc("subtitle-loc-key", "subtitle-loc-args"),
        body: typeof alert.body === "string" ? alert.body : loc("loc-key", "loc-args"),
      };
    }
    return null;
  }

  /** The lock screen as the user would see the record, or why nothing shows. */
  function renderPreview(target, record) {
    clear(target);
    const type = record.pushType || record.inferredPushType;
    const payload = record.payload && typeof record.payload === "object" ? record.payload : null;
    const aps = payload && payload.aps && typeof payload.aps === "object" ? payload.aps : {};
    const device = record.device || null;
    const heading = el("h3", {}, "What the user would see");
    if (record.status !== 200) {
      append(target, [heading, el("div", { class: "silent" }, "Not delivered: "
        + (record.status ? record.status + " " + (record.reason || "") : (record.unanswered || "no answer yet")))]);
      return;
    }
    const state = record.lifecycleState || "";
    if (/Stored|held/i.test(state)) {
      append(target, [heading, el("div", { class: "silent" }, "Held: " + state + " (shown when the device is back online)")]);
      return;
    }
    if (/Discarded|Expired/i.test(state)) {
      append(target, [heading, el("div", { class: "silent" }, "Not delivered: " + state)]);
      return;
    }
    if (type === "liveactivity") {
      const event = aps.event || "update";
      append(target, [heading, el("div", { class: "lock" },
        el("div", { class: "banner" },
          el("div", { class: "banner-head" }, el("span", { class: "app-icon" }, appName(record.topic).charAt(0)),
            appName(record.topic) + " · Live Activity " + event, el("span", { class: "banner-time" }, timeOf(record.receivedAt))),
          aps.alert ? el("div", { class: "banner-title" }, (alertParts(aps) || {}).title || "") : null,
          el("pre", {}, "content-state: " + JSON.stringify(aps["content-state"] || {}, null, 2)),
          aps["stale-date"] ? el("div", { class: "muted" }, "stale at " + new Date(aps["stale-date"] * 1000).toLocaleTimeString()) : null,
          aps["dismissal-date"] ? el("div", { class: "muted" }, "dismissed at " + new Date(aps["dismissal-date"] * 1000).toLocaleTimeString()) : null))]);
      return;
    }
    const parts = alertParts(aps);
    if (!parts || (!parts.title && !parts.body && !parts.subtitle)) {
      let text;
      if (type === "voip") text = "Silent: PushKit wakes the app (VoIP); it must report a call.";
      else if (type === "background" || aps["content-available"] === 1) {
        text = device && device.wake && device.wake !== "none"
          ? "Silent: wakes the app in the background (" + device.wake + ")."
          : device ? "Silent: the app is not woken (" + (device.wake || "none") + ")." : "Silent: wakes the app in the background.";
      } else if (aps.badge !== undefined) text = "No banner: the app icon's badge becomes " + aps.badge + ".";
      else text = "Nothing visible: the push has no alert.";
      append(target, [heading, el("div", { class: "silent" }, text)]);
      return;
    }
    if (device && device.presentation && device.presentation.shown === false) {
      append(target, [heading, el("p", { class: "muted" }, "The virtual device did not show it (app in the foreground, "
        + "willPresent chose nothing, or alerts are off); it would look like this:")]);
    }
    const actions = device && Array.isArray(device.actions) ? device.actions : [];
    const name = appName(record.topic);
    append(target, [heading, el("div", { class: "lock" },
      el("div", { class: "lock-clock" }, new Date(record.receivedAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })),
      el("div", { class: "banner", role: "img", "aria-label": "Notification banner" },
        el("div", { class: "banner-head" }, el("span", { class: "app-icon" }, name.charAt(0)), name,
          typeof aps.badge === "number" && aps.badge > 0 ? el("span", { class: "badge" }, String(aps.badge)) : null,
          el("span", { class: "banner-time" }, "now")),
        parts.title ? el("div", { class: "banner-title" }, parts.title) : null,
        parts.subtitle ? el("div", { class: "banner-subtitle" }, parts.subtitle) : null,
        parts.body ? el("div", { class: "banner-body" }, parts.body) : null),
      actions.length ? el("div", { class: "banner-actions" }, actions.map((a) => el("span", {}, a.title || a.identifier))) : null),
      device && record.deviceToken ? interactionButtons(record, actions) : null]);
  }

  /** "On another device": the device model's decision for this accepted push on a virtual
   *  device (as it is now) or a default one, in the app state chosen
   *  (`GET /v1/deliveries/{seq}/preview?device=&appState=`); nothing is delivered. */
  function whatIf(record) {
    const deviceSelect = el("select", { id: "what-if-device", "aria-label": "Virtual device" },
      el("option", { value: "" }, "a default device"));
    const stateSelect = el("select", { id: "what-if-app-state", "aria-label": "App state" },
      el("option", { value: "" }, "its own app state"),
      ["foreground", "background", "suspended", "notRunning", "forceQuit"].map((s) => el("option", { value: s }, s)));
    const result = el("div", { id: "what-if-result", "aria-live": "polite" });
    async function run() {
      const query = [];
      if (deviceSelect.value) query.push("device=" + encodeURIComponent(deviceSelect.value));
      if (stateSelect.value) query.push("appState=" + encodeURIComponent(stateSelect.value));
      try {
        const answer = await api("GET", "/v1/deliveries/" + record.seq + "/preview" + (query.length ? "?" + query.join("&") : ""));
        renderWhatIf(clear(result), answer);
      } catch (e) {
        clear(result).appendChild(el("p", { class: "error" }, e.message));
      }
    }
    deviceSelect.addEventListener("change", run);
    stateSelect.addEventListener("change", run);
    (async () => {
      try {
        const answer = await api("GET", "/v1/devices?limit=500");
        for (const d of answer.devices.filter((d) => d.virtual)) {
          deviceSelect.appendChild(el("option", { value: d.token, selected: d.token === record.deviceToken }, shortToken(d.token) + " (" + d.appState + ")"));
        }
      } catch (e) { /* a default device only */ }
      run();
    })();
    return el("div", { class: "what-if" }, el("h3", {}, "On another device"),
      el("div", { class: "buttons" }, el("label", {}, "Device ", deviceSelect), el("label", {}, "App state ", stateSelect)), result);
  }

  /** A `DeviceReaction` in words: shown or not, callbacks, service extension, wake, actions. */
  function renderWhatIf(target, answer) {
    const r = answer.reaction;
    const p = r.presentation;
    const shown = [p.banner ? "banner" : null, p.list ? "Notification Center" : null, p.sound ? "sound" : null].filter(Boolean);
    target.dataset.shown = String(p.shown);
    append(target, [kv([
      ["device", answer.device ? shortToken(answer.device) : "a default device"], ["app state", answer.appState],
      ["the user sees", shown.length ? shown.join(", ") : "nothing"],
      ["badge", p.badge === null ? "unchanged" : p.badge],
      ["callbacks", r.callbacks.length ? r.callbacks.map((c) => c.method).join(", ") : "none (no app code runs)"],
      ["service extension", r.serviceExtension.status + (r.serviceExtension.reason ? " (" + r.serviceExtension.reason + ")" : "")],
      ["wake", r.wake], ["app state after", r.appStateAfter],
      ["actions", r.actions.length ? r.actions.map((a) => a.title || a.identifier).join(", ") : "none"],
    ]), r.lints.length ? el("ul", {}, r.lints.map((l) => el("li", { class: "lint" }, l))) : null]);
  }

  /** The user's part on a virtual device: tap, dismiss or an action button
   *  (`POST /v1/devices/{token}/interactions`); the outcome is shown below. */
  function interactionButtons(record, actions) {
    const outcome = el("pre", { id: "interaction-outcome", "aria-live": "polite" });
    const act = (body) => async () => {
      try {
        const answer = await api("POST", "/v1/devices/" + record.deviceToken + "/interactions",
          Object.assign({ notification: record.seq }, body));
        outcome.textContent = JSON.stringify(answer, null, 2);
      } catch (e) {
        outcome.textContent = e.message;
      }
    };
    return [el("div", { class: "buttons", "aria-label": "Act as the user" },
      el("button", { type: "button", onclick: act({ type: "tap" }) }, "Tap"),
      actions.map((a) => el("button", { type: "button", onclick: act({ type: "action", action: a.identifier }) }, a.title || a.identifier)),
      el("button", { type: "button", onclick: act({ type: "dismiss" }) }, "Dismiss")), outcome];
  }

  // ---------------------------------------------------------------- compose

  const templates = {
    alert: { type: "alert", priority: "10", payload: { aps: { alert: { title: "Hello", subtitle: "From MockAPNs", body: "Your order shipped" }, badge: 1, sound: "default" } } },
    background: { type: "background", priority: "5", payload: { aps: { "content-available": 1 }, refresh: "inbox" } },
    voip: { type: "voip", priority: "10", suffix: ".voip", payload: { aps: {}, caller: "Alice" } },
    liveactivity: { type: "liveactivity", priority: "10", suffix: ".push-type.liveactivity",
      payload: { aps: { timestamp: 0, event: "update", "content-state": { progress: 0.5 } } } },
    location: { type: "location", priority: "10", suffix: ".location-query", payload: {} },
    complication: { type: "complication", priority: "10", suffix: ".complication", payload: { aps: {}, score: "2-1" } },
    fileprovider: { type: "fileprovider", priority: "10", suffix: ".pushkit.fileprovider", payload: { "container-identifier": "NSFileProviderRootContainerItemIdentifier" } },
    mdm: { type: "mdm", priority: "10", payload: { mdm: "00000000-0000-0000-0000-000000000000" } },
    pushtotalk: { type: "pushtotalk", priority: "10", suffix: ".voip-ptt", payload: { aps: {}, speaker: "Bob" } },
    widgets: { type: "widgets", priority: "10", suffix: ".push-type.widgets", payload: { aps: { "content-changed": true } } },
    controls: { type: "controls", priority: "10", suffix: ".push-type.controls", payload: { aps: { "content-changed": true } } },
  };

  function setupCompose() {
    const select = $("compose-template");
    for (const name of Object.keys(templates)) {
      select.appendChild(el("option", { value: name }, name));
      $("push-types").appendChild(el("option", { value: name }));
    }
    select.addEventListener("change", () => applyTemplate(select.value));
    $("compose-token").value = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
    applyTemplate("alert");
    for (const id of ["compose-payload", "compose-push-type"]) $(id).addEventListener("input", updateSize);
    $("compose").addEventListener("submit", (event) => { event.preventDefault(); sendComposed(); });
    $("compose-listener").addEventListener("change", describeAuth);
    $("compose-copy-curl").addEventListener("click", () => copyText(curlCommand(composed())));
    $("compose-copy-cli").addEventListener("click", () => copyText(cliCommand(composed())));
  }

  function applyTemplate(name) {
    const template = templates[name];
    const base = $("compose-topic").value.replace(/\.(voip|voip-ptt|complication|location-query|pushkit\.fileprovider|push-type\.[a-z]+)$/, "") || "com.example.app";
    $("compose-topic").value = base + (template.suffix || "");
    if (template.payload.aps && "timestamp" in template.payload.aps) template.payload.aps.timestamp = Math.floor(Date.now() / 1000);
    $("compose-push-type").value = template.type;
    $("compose-priority").value = template.priority;
    $("compose-payload").value = JSON.stringify(template.payload, null, 2);
    updateSize();
  }

  function updateSize() {
    const text = $("compose-payload").value;
    const bytes = new TextEncoder().encode(text).length;
    const limit = $("compose-push-type").value.trim() === "voip" ? VOIP_PAYLOAD_LIMIT : PAYLOAD_LIMIT;
    const size = $("compose-size");
    size.textContent = bytes + " of " + limit + " bytes";
    size.className = bytes > limit ? "over" : "muted";
    try {
      JSON.parse(text);
      $("compose-json").textContent = "";
    } catch (e) {
      $("compose-json").textContent = "not JSON: " + e.message;
    }
  }

  /** The composed push: `{listener, token, headers: [{name, value}], payload}`. */
  function composed() {
    const headers = [];
    const field = (name, id) => {
      const value = $(id).value.trim();
      if (value) headers.push({ name, value });
    };
    field("apns-topic", "compose-topic");
    field("apns-push-type", "compose-push-type");
    field("apns-priority", "compose-priority");
    field("apns-expiration", "compose-expiration");
    field("apns-collapse-id", "compose-collapse-id");
    field("apns-id", "compose-apns-id");
    field("authorization", "compose-authorization");
    return { listener: $("compose-listener").value || undefined, token: $("compose-token").value.trim(), headers, payload: $("compose-payload").value };
  }

  function fromRecord(record) {
    const skip = new Set(["content-length", "user-agent", "accept", "content-type"]);
    return {
      listener: record.listener, token: record.deviceToken || "",
      headers: (record.headers || []).filter((h) => !skip.has(h.name.toLowerCase()) && !h.name.startsWith(":")),
      payload: record.payload !== null ? JSON.stringify(record.payload) : (record.payloadText || ""),
    };
  }

  function loadCompose(push) {
    const value = (name) => { const h = push.headers.find((x) => x.name.toLowerCase() === name); return h ? h.value : ""; };
    $("compose-token").value = push.token;
    $("compose-topic").value = value("apns-topic");
    $("compose-push-type").value = value("apns-push-type");
    $("compose-priority").value = value("apns-priority");
    $("compose-expiration").value = value("apns-expiration");
    $("compose-collapse-id").value = value("apns-collapse-id");
    $("compose-apns-id").value = value("apns-id");
    const auth = value("authorization");
    $("compose-authorization").value = auth.endsWith("…") || auth.includes("<redacted") ? "" : auth;
    try { $("compose-payload").value = JSON.stringify(JSON.parse(push.payload), null, 2); } catch (e) { $("compose-payload").value = push.payload; }
    if (push.listener) $("compose-listener").value = push.listener;
    updateSize();
  }

  let listenerURLs = {};
  let listenerInfo = {};

  async function loadListeners() {
    try {
      const health = await api("GET", "/v1/health");
      const select = $("compose-listener");
      const chosen = select.value;
      clear(select);
      listenerURLs = {};
      listenerInfo = {};
      for (const listener of health.listeners) {
        listenerURLs[listener.name] = listener.address;
        listenerInfo[listener.name] = listener;
        select.appendChild(el("option", { value: listener.name, selected: listener.name === chosen },
          listener.name + " (" + listener.environment + ", " + listener.address + ")"));
      }
      describeAuth();
    } catch (e) { /* shown by the deliveries' state */ }
  }

  /** Which authentication the send meets on the chosen listener (`auth`, `clientCertificates`
   *  of `GET /v1/health`): the console's sends present no client certificate, so only token
   *  authentication (or none) can be tried from here. */
  function describeAuth() {
    const listener = listenerInfo[$("compose-listener").value] || Object.values(listenerInfo)[0];
    const target = $("compose-auth");
    if (!listener) { target.textContent = ""; return; }
    const modes = {
      strict: "checks provider tokens strictly: put bearer <JWT> in authorization (Validate → Generate makes one it accepts)",
      permissive: "is permissive: a push without a token passes; a token sent is checked (its signature when its key is configured)",
      none: "checks no credentials",
    };
    const mode = modes[listener.auth] || (listener.auth ? "auth " + listener.auth : "auth mode not reported");
    const certificates = listener.clientCertificates
      ? " It asks TLS clients for a certificate, but the console's sends present none: try certificate authentication with mock-apns send --cert FILE."
      : " The console's sends present no client certificate (token authentication only).";
    target.textContent = "Listener " + listener.name + " " + mode + "." + certificates;
    target.dataset.auth = listener.auth || "";
  }

  function shellQuote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }

  function listenerURL(push) {
    return listenerURLs[push.listener] || Object.values(listenerURLs)[0] || "https://127.0.0.1:2197";
  }

  function curlCommand(push) {
    const parts = ["curl", "--http2", "--cacert", "tls/ca.pem"];
    for (const h of push.headers) parts.push("-H", shellQuote(h.name + ": " + h.value));
    parts.push("--data-binary", shellQuote(compact(push.payload)), shellQuote(listenerURL(push) + "/3/device/" + push.token));
    return parts.join(" ");
  }

  function cliCommand(push) {
    const flags = { "apns-topic": "--topic", "apns-push-type": "--push-type", "apns-priority": "--priority",
      "apns-expiration": "--expiration", "apns-collapse-id": "--collapse-id", "apns-id": "--apns-id",
      "authorization": "--authorization" };
    // Every value from a record or the form is quoted: a recorded token is whatever the sender put in the path.
    const parts = ["mock-apns", "send", "--cacert", "tls/ca.pem", "--url", shellQuote(listenerURL(push)),
      "--device-token", shellQuote(push.token)];
    for (const h of push.headers) {
      const flag = flags[h.name.toLowerCase()];
      if (flag) parts.push(flag, shellQuote(h.value));
      else parts.push("--header", shellQuote(h.name + ": " + h.value));
    }
    parts.push(shellQuote(compact(push.payload)));
    return parts.join(" ");
  }

  function compact(payload) {
    try { return JSON.stringify(JSON.parse(payload)); } catch (e) { return payload; }
  }

  function copyText(text) {
    $("compose-command").value = text;
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).catch(() => {});
  }

  async function sendComposed() {
    const target = clear($("compose-answer"));
    const push = composed();
    target.appendChild(el("p", { class: "muted" }, "sending…"));
    try {
      const answer = await api("POST", "/v1/send", push);
      clear(target);
      append(target, [el("h3", {}, "Answer"), kv([
        ["status", answer.status], ["apns-id", answer.apnsId], ["reason", answer.reason], ["record seq", answer.seq],
        ["error", answer.error]]),
        answer.body ? el("pre", {}, answer.body) : null,
        answer.seq ? el("button", { type: "button", onclick: () => { show("deliveries"); select(answer.seq); } }, "Show the record") : null]);
    } catch (e) {
      clear(target);
      target.appendChild(el("p", { class: "error", role: "alert" }, e.message));
    }
  }

  // ---------------------------------------------------------------- validators

  function base64URLDecode(text) {
    const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    const binary = atob(padded);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  }

  /** Writes `text` to the clipboard where the browser allows it (a secure context); says so in `status`. */
  function copyToClipboard(text, status) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => { status.textContent = "copied"; },
        () => { status.textContent = "select the token and copy it (the clipboard was refused)"; });
    } else {
      status.textContent = "select the token and copy it (no clipboard outside a secure context)";
    }
  }

  /** `POST /v1/provider-tokens`: a token signed with the server's test key. An isolated
   *  gateway's API has no test key (503): the default gateway's is asked, whose key every
   *  gateway of the server accepts. */
  async function generateToken(ageSeconds) {
    try {
      return await api("POST", "/v1/provider-tokens", { ageSeconds });
    } catch (e) {
      if (e.status === 503 && base) return rootAPI("POST", "/v1/provider-tokens", { ageSeconds });
      throw e;
    }
  }

  function setupGenerator() {
    $("generate-jwt").addEventListener("submit", async (event) => {
      event.preventDefault();
      const target = clear($("generate-jwt-result"));
      let answer;
      try {
        answer = await generateToken(Number($("generate-jwt-age").value));
      } catch (e) {
        target.appendChild(el("p", { class: "error", role: "alert" }, e.message));
        return;
      }
      const status = el("span", { class: "muted", id: "generate-jwt-copied", "aria-live": "polite" });
      const token = el("textarea", { id: "generate-jwt-token", rows: "3", readonly: true, spellcheck: "false", "aria-label": "Generated token" });
      token.value = answer.token;
      append(target, [
        el("h3", {}, "Header"), el("pre", { id: "generate-jwt-header" }, JSON.stringify(answer.header, null, 2)),
        el("h3", {}, "Claims"), el("pre", { id: "generate-jwt-claims" }, JSON.stringify(answer.claims, null, 2)),
        kv([["expires at", new Date(answer.expiresAt * 1000).toLocaleTimeString()]]),
        el("h3", {}, "Token"), token,
        el("div", { class: "buttons" },
          el("button", { type: "button", id: "generate-jwt-copy", onclick: () => { token.select(); copyToClipboard(answer.token, status); } }, "Copy"),
          el("button", { type: "button", id: "generate-jwt-check", onclick: () => {
            $("validate-jwt-token").value = answer.token;
            $("validate-jwt").requestSubmit();
          } }, "Check it below"),
          el("button", { type: "button", id: "generate-jwt-compose", onclick: () => {
            $("compose-authorization").value = answer.authorization;
            show("compose");
          } }, "Use in Compose"),
          status)]);
    });
  }

  function setupValidators() {
    setupGenerator();
    $("validate-device").addEventListener("submit", async (event) => {
      event.preventDefault();
      const token = $("validate-device-token").value.trim();
      const target = clear($("validate-device-result"));
      const problems = [];
      if (!/^[0-9a-fA-F]*$/.test(token)) problems.push("not hexadecimal: APNs device tokens are hex digits");
      if (token.length % 2 !== 0) problems.push("an odd number of hex digits");
      if (token.length !== 64) problems.push(token.length + " hex digits: device tokens are usually 64 (32 bytes); APNs answers BadDeviceToken to most others");
      target.appendChild(problems.length ? el("ul", {}, problems.map((p) => el("li", { class: "error" }, p))) : el("p", {}, "Format: 64 hex digits, fine."));
      if (!/^[0-9a-fA-F]+$/.test(token)) return;
      try {
        const device = await api("GET", "/v1/devices/" + token.toLowerCase());
        target.appendChild(kv([["registry", "registered"], ["environment", device.environment], ["topic", device.topic],
          ["virtual device", device.virtual ? "yes" : "no"], ["unregistered at", device.unregisteredAt], ["expired", device.expired]]));
      } catch (e) {
        target.appendChild(el("p", {}, e.status === 404 ? "Registry: not registered (an open registry accepts it for any environment and topic; --registry closed answers BadDeviceToken)." : e.message));
      }
    });
    $("validate-jwt").addEventListener("submit", async (event) => {
      event.preventDefault();
      const target = clear($("validate-jwt-result"));
      let token = $("validate-jwt-token").value.trim().replace(/^bearer\s+/i, "");
      const parts = token.split(".");
      if (parts.length !== 3) {
        target.appendChild(el("p", { class: "error" }, "a JWT has three parts separated by dots; this has " + parts.length));
        return;
      }
      let head, claims;
      try {
        head = JSON.parse(base64URLDecode(parts[0]));
        claims = JSON.parse(base64URLDecode(parts[1]));
      } catch (e) {
        target.appendChild(el("p", { class: "error" }, "a part is not base64url JSON: " + e.message));
        return;
      }
      const notes = [];
      if (head.alg !== "ES256") notes.push("alg is " + JSON.stringify(head.alg) + ": APNs requires ES256 (InvalidProviderToken)");
      if (!head.kid) notes.push("no kid (key ID) in the header: MissingProviderToken/InvalidProviderToken");
      if (!claims.iss) notes.push("no iss (team ID) claim");
      if (typeof claims.iat !== "number") notes.push("no numeric iat claim");
      else {
        const age = Math.floor(Date.now() / 1000) - claims.iat;
        if (age > 3600) notes.push("iat is " + age + " s old: more than an hour, APNs answers 403 ExpiredProviderToken");
        else if (age < -60) notes.push("iat is " + (-age) + " s in the future");
        else notes.push("iat is " + age + " s old: fine (refresh between 20 and 60 minutes; more often than every 20 minutes gets TooManyProviderTokenUpdates)");
      }
      append(target, [el("h3", {}, "Header"), el("pre", {}, JSON.stringify(head, null, 2)),
        el("h3", {}, "Claims"), el("pre", {}, JSON.stringify(claims, null, 2)),
        el("ul", {}, notes.map((n) => el("li", {}, n)))]);
      const listener = $("compose-listener").value || undefined;
      try {
        const check = await api("POST", "/v1/validate/provider-token", { token, topic: $("compose-topic").value.trim() || undefined, listener });
        append(target, [el("h3", {}, "Checked by listener " + check.listener + " (" + check.environment + ")"),
          el("p", { class: check.accepted ? "" : "error", id: "validate-jwt-verdict" },
            check.accepted ? "Accepted: " + check.verdict : "403 " + check.reason + ": " + check.verdict),
          kv([["key configured", check.keyConfigured ? "yes" : "no (--keys)"], ["age", check.ageSeconds === null ? null : check.ageSeconds + " s"],
            ["expires at", check.expiresAt === null ? null : new Date(check.expiresAt * 1000).toLocaleTimeString()],
            ["a new token allowed on a connection from", check.refreshAllowedAt === null ? null : new Date(check.refreshAllowedAt * 1000).toLocaleTimeString()]])]);
      } catch (e) {
        target.appendChild(el("p", { class: "error" }, e.message));
      }
    });
  }

  // ---------------------------------------------------------------- faults

  loaders.faults = async function () {
    loadScenarios();
    const body = $("fault-rows");
    try {
      const answer = await api("GET", "/v1/faults");
      clear(body);
      for (const rule of answer.faults) {
        const shown = Object.assign({}, rule);
        for (const key of ["id", "matched", "fired", "spent"]) delete shown[key];
        body.appendChild(el("tr", {},
          el("td", { class: "mono" }, rule.id),
          el("td", {}, el("code", {}, JSON.stringify(shown))),
          el("td", {}, String(rule.matched)), el("td", {}, String(rule.fired)),
          el("td", {}, el("button", { type: "button", onclick: async () => {
            try { await api("DELETE", "/v1/faults/" + encodeURIComponent(rule.id)); } catch (e) { $("fault-error").textContent = e.message; }
            loaders.faults();
          } }, "Delete"))));
      }
      if (answer.faults.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "5", class: "muted" }, "No fault rules.")));
    } catch (e) {
      $("fault-error").textContent = e.message;
    }
  };

  // The presets of `GET /v1/fault-scenarios`, asked for once per gateway; picking one fills the
  // editor with its example body (`{"scenario", "parameters"}`) and says what it does.
  let scenarios = null;
  let scenariosBase = null;

  async function loadScenarios() {
    if (scenarios && scenariosBase === base) return;
    const select = $("fault-scenario");
    try {
      const answer = await api("GET", "/v1/fault-scenarios");
      scenarios = answer.scenarios;
      scenariosBase = base;
      clear(select);
      select.appendChild(el("option", { value: "" }, "(a preset: fills the editor)"));
      for (const scenario of scenarios) select.appendChild(el("option", { value: scenario.name }, scenario.name));
    } catch (e) {
      $("fault-error").textContent = e.message;
    }
  }

  $("fault-scenario").addEventListener("change", () => {
    const help = clear($("fault-scenario-help"));
    const scenario = (scenarios || []).find((s) => s.name === $("fault-scenario").value);
    if (!scenario) return;
    $("fault-json").value = JSON.stringify(scenario.example, null, 2);
    $("fault-error").textContent = "";
    append(help, [el("p", {}, scenario.summary),
      scenario.parameters.length
        ? el("ul", {}, scenario.parameters.map((p) => el("li", {}, el("code", {}, p.name), ": " + p.description)))
        : el("p", {}, "It takes no parameter.")]);
  });

  $("fault-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("fault-error").textContent = "";
    try {
      await api("POST", "/v1/faults", $("fault-json").value);
      loaders.faults();
    } catch (e) {
      $("fault-error").textContent = e.message;
    }
  });

  // ---------------------------------------------------------------- connections

  loaders.connections = async function () {
    const body = $("connection-rows");
    try {
      const answer = await api("GET", "/v1/connections");
      clear(body);
      for (const c of answer.connections) {
        const command = (action) => async () => {
          try {
            await api("POST", "/v1/connections/" + c.id + "/" + action, "");
            $("connection-message").textContent = action + " sent to connection " + c.id;
          } catch (e) { $("connection-message").textContent = e.message; }
          loaders.connections();
        };
        body.appendChild(el("tr", {},
          el("td", {}, String(c.id)), el("td", {}, c.listener), el("td", { class: "mono" }, c.peer),
          el("td", {}, c.state + ", " + c.auth + ", " + c.requests + " requests, " + c.openStreams + " open streams, " + Math.round(c.ageMs / 1000) + " s"),
          el("td", { class: "buttons" },
            el("button", { type: "button", onclick: command("goaway") }, "GOAWAY"),
            el("button", { type: "button", onclick: command("drain") }, "Drain"),
            el("button", { type: "button", onclick: command("close") }, "Close"))));
      }
      if (answer.connections.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "5", class: "muted" }, "No open APNs connection.")));
    } catch (e) {
      $("connection-message").textContent = e.message;
    }
  };

  // ---------------------------------------------------------------- pushes per second
  // Counted from the records as they arrive (stream or poll), by the second they were received,
  // over the last 120 s; drawn on a canvas once a second: accepted in green, others in red.

  const RATE_SECONDS = 120;
  const rate = new Map(); // epoch second -> {ok, bad}

  function countRate(batch) {
    for (const record of batch) {
      const second = Math.floor(Date.parse(record.receivedAt) / 1000);
      if (isNaN(second)) continue;
      const slot = rate.get(second) || { ok: 0, bad: 0 };
      if (record.status === 200) slot.ok += 1; else slot.bad += 1;
      rate.set(second, slot);
    }
  }

  function drawRate() {
    const canvas = $("rate-chart");
    const now = Math.floor(Date.now() / 1000);
    for (const second of rate.keys()) if (second <= now - RATE_SECONDS) rate.delete(second);
    let peak = 1, total = 0, bad = 0;
    for (const slot of rate.values()) { peak = Math.max(peak, slot.ok + slot.bad); total += slot.ok + slot.bad; bad += slot.bad; }
    const context = canvas.getContext("2d");
    context.clearRect(0, 0, canvas.width, canvas.height);
    const width = canvas.width / RATE_SECONDS;
    for (let i = 0; i < RATE_SECONDS; i++) {
      const slot = rate.get(now - RATE_SECONDS + 1 + i);
      if (!slot) continue;
      const okHeight = canvas.height * slot.ok / peak, badHeight = canvas.height * slot.bad / peak;
      context.fillStyle = "#2e9d4f";
      context.fillRect(i * width, canvas.height - okHeight, Math.max(1, width - 1), okHeight);
      context.fillStyle = "#d33c3c";
      context.fillRect(i * width, canvas.height - okHeight - badHeight, Math.max(1, width - 1), badHeight);
    }
    const text = total + " pushes in the last " + RATE_SECONDS + " s (" + bad + " not 200), peak " + (total ? peak : 0) + "/s";
    $("rate-caption").textContent = text;
    canvas.setAttribute("aria-label", "pushes per second: " + text);
  }

  setInterval(drawRate, 1000);

  // ---------------------------------------------------------------- channels

  loaders.channels = async function () {
    const body = $("channel-rows");
    try {
      const answer = await api("GET", "/v1/channels");
      clear(body);
      for (const c of answer.channels) {
        // The virtual devices subscribed (their `channels`, docs/broadcast.md §5): the count,
        // then each token shortened (the full tokens in the cell's title).
        const tokens = Array.isArray(c.subscribers) ? c.subscribers.map((s) => typeof s === "string" ? s : s.token) : null;
        const subscribers = tokens === null ? "—"
          : el("span", { class: "subscribers", "data-count": tokens.length, title: tokens.join("\n") },
            tokens.length === 0 ? "0" : tokens.length + ": " + tokens.map(shortToken).join(", "));
        body.appendChild(el("tr", { "data-channel": c.id },
          el("td", { class: "mono" }, c.id), el("td", {}, c.bundleId), el("td", {}, c.environment),
          el("td", {}, c.messageStoragePolicy === 1 ? "1 (most recent stored)" : "0 (none stored)"),
          el("td", {}, timeOf(c.createdAt)), el("td", {}, subscribers),
          el("td", {}, el("button", { type: "button", onclick: async () => {
            try {
              await api("DELETE", "/v1/channels/" + encodeURIComponent(c.id));
              $("channel-message").textContent = "channel " + c.id + " deleted";
            } catch (e) { $("channel-message").textContent = e.message; }
            loaders.channels();
          } }, "Delete"))));
      }
      if (answer.channels.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "7", class: "muted" }, "No broadcast channel.")));
    } catch (e) {
      $("channel-message").textContent = e.message;
    }
  };

  // ---------------------------------------------------------------- connection events
  // Live over `GET /v1/events/stream` once the view is opened (polling `/v1/events?after=` with a
  // control token), the newest 500 kept, newest on top.

  let events = [];
  let stopEvents = null;

  function eventReason(e) {
    const d = e.details || {};
    const parts = [];
    if (d.reason) parts.push(d.reason);
    if (d.errorCode) parts.push(d.errorCode);
    if (d.debugData) parts.push("debug data " + d.debugData);
    return parts.length ? parts.join(", ") : (e.description || "");
  }

  const seenEventKinds = new Set();
  const seenEventListeners = new Set();

  /** The events view's filters (kind, connection, listener), applied in the page as the
   *  deliveries' are; the kinds and listeners offered are those seen. */
  function matchesEventFilters(e) {
    const kind = $("event-filter-kind").value;
    if (kind && e.kind !== kind) return false;
    const connection = $("event-filter-connection").value.trim();
    if (connection && String(e.connectionId === undefined || e.connectionId === null ? "" : e.connectionId) !== connection) return false;
    const listener = $("event-filter-listener").value;
    if (listener && e.listener !== listener) return false;
    return true;
  }

  function offerEventChoices(batch) {
    for (const e of batch) {
      if (e.kind && !seenEventKinds.has(e.kind)) {
        seenEventKinds.add(e.kind);
        $("event-filter-kind").appendChild(el("option", { value: e.kind }, e.kind));
      }
      if (e.listener && !seenEventListeners.has(e.listener)) {
        seenEventListeners.add(e.listener);
        $("event-filter-listener").appendChild(el("option", { value: e.listener }, e.listener));
      }
    }
  }

  function renderEvents() {
    const body = clear($("event-rows"));
    const shown = events.filter(matchesEventFilters);
    $("event-count").textContent = (shown.length === events.length ? shown.length : shown.length + " of " + events.length) + " shown";
    for (const e of shown.slice(0, ROWS)) {
      body.appendChild(el("tr", { "data-seq": e.seq, title: e.description || "" },
        el("td", {}, String(e.seq)), el("td", {}, timeOf(e.at)), el("td", { class: "event-kind" }, e.kind),
        el("td", {}, e.connectionId === undefined || e.connectionId === null ? "" : String(e.connectionId)),
        el("td", {}, e.listener || ""), el("td", {}, e.origin || ""), el("td", { class: "event-reason" }, eventReason(e))));
    }
    if (events.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "7", class: "muted" }, "No connection event yet.")));
    else if (shown.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "7", class: "muted" }, "No event matches the filters.")));
  }

  for (const id of ["event-filter-kind", "event-filter-connection", "event-filter-listener"]) {
    $(id).addEventListener("input", renderEvents);
    $(id).addEventListener("change", renderEvents);
  }
  $("event-filters").addEventListener("submit", (event) => event.preventDefault());

  function addEvents(batch) {
    offerEventChoices(batch);
    events = batch.slice().reverse().concat(events).slice(0, 500);
    renderEvents();
  }

  function startEvents() {
    if (stopEvents) return;
    events = [];
    renderEvents();
    let stopped = false;
    let lastSeq = 0;
    let es = null;
    let timer = null;
    async function poll() {
      if (stopped) return;
      try {
        const answer = await api("GET", "/v1/events?after=" + lastSeq + "&limit=500");
        if (answer.events.length) { lastSeq = answer.events[answer.events.length - 1].seq; addEvents(answer.events); }
        $("event-message").textContent = "";
      } catch (e) { $("event-message").textContent = e.message; }
      timer = setTimeout(poll, POLL_MS);
    }
    if (bearer || typeof EventSource === "undefined") {
      poll();
    } else {
      window.__consoleEventSource = "stream";
      es = new EventSource(base + "/v1/events/stream");
      es.addEventListener("event", (message) => {
        const e = JSON.parse(message.data);
        if (e.seq <= lastSeq) return;
        lastSeq = e.seq;
        addEvents([e]);
      });
      es.addEventListener("gap", (message) => {
        const gap = JSON.parse(message.data);
        $("event-message").textContent = "events " + gap.from + "–" + gap.to + " were gone before the stream sent them";
      });
      es.addEventListener("error", () => {
        if (es.readyState === EventSource.CLOSED && !stopped) { es = null; window.__consoleEventSource = "polling"; poll(); }
      });
    }
    stopEvents = () => { stopped = true; clearTimeout(timer); if (es) es.close(); stopEvents = null; };
  }

  loaders.events = startEvents;

  // ---------------------------------------------------------------- gateways
  // `GET /v1/gateways`: the default gateway or an isolated one; every request then goes under
  // the chosen one's controlBase.

  async function loadGateways() {
    const select = $("gateway");
    try {
      const answer = await rootAPI("GET", "/v1/gateways");
      const chosen = select.value;
      clear(select);
      select.appendChild(el("option", { value: "" }, "default"));
      for (const g of answer.gateways) {
        select.appendChild(el("option", { value: g.controlBase, selected: g.controlBase === chosen },
          g.name + " (" + g.id + ", " + g.url + ")"));
      }
    } catch (e) { /* an API without gateways: only the default */ }
  }

  $("gateway").addEventListener("focus", loadGateways);
  $("gateway").addEventListener("change", () => {
    base = $("gateway").value;
    selectedSeq = null;
    $("detail").hidden = true;
    $("stream-notice").textContent = "";
    if (stopEvents) stopEvents();
    loadListeners();
    restartDeliveries();
    const current = document.querySelector('.tab[aria-pressed="true"]');
    if (current && loaders[current.dataset.view]) loaders[current.dataset.view]();
  });

  // ---------------------------------------------------------------- devices

  loaders.devices = async function () {
    const body = $("device-rows");
    try {
      const answer = await api("GET", "/v1/devices?limit=500");
      clear(body);
      for (const d of answer.devices) {
        const patch = (field) => async (event) => {
          try {
            await api("PATCH", "/v1/devices/" + d.token, { [field]: event.target.value });
            $("device-message").textContent = shortToken(d.token) + ": " + field + " is now " + event.target.value;
          } catch (e) { $("device-message").textContent = e.message; }
          loaders.devices();
        };
        const choice = (field, values, current) => d.virtual
          ? el("select", { "aria-label": field + " of " + d.token, onchange: patch(field) },
              values.map((v) => el("option", { value: v, selected: v === current }, v)))
          : "—";
        body.appendChild(el("tr", {},
          el("td", { class: "mono", title: d.token }, shortToken(d.token)), el("td", {}, d.environment), el("td", {}, d.topic || ""),
          el("td", {}, d.virtual ? "yes" : "no"),
          el("td", {}, choice("connectivity", ["online", "offline", "lowPower"], d.connectivity)),
          el("td", {}, choice("appState", ["foreground", "background", "suspended", "notRunning", "forceQuit"], d.appState))));
      }
      if (answer.devices.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "6", class: "muted" }, "No registered device.")));
    } catch (e) {
      $("device-message").textContent = e.message;
    }
  };

  // ---------------------------------------------------------------- start

  loaders.compose = loadListeners;
  setupCompose();
  setupValidators();
  loadListeners();
  loadGateways();
  restartDeliveries();
})();
