import APNsCore
import JSONSupport
import Recording

extension ControlAPI {
    /// `GET /metrics`: the server's counters in the Prometheus text format, or OpenMetrics when
    /// `accept` asks for `application/openmetrics-text` (`MetricsExposition.Format.negotiated`);
    /// README "Metrics" lists the families. Everything is read at scrape time from what is
    /// counted anyway: the store's counts (`DeliveryStore.stats()`, `pushSeries()`, the same
    /// numbers as `/v1/stats`), the event store's, the fault rules' `fired`, the connection
    /// directory and the answer-latency histogram.
    func metrics(accept: String?) -> ControlResponse {
        let format = MetricsExposition.Format.negotiated(accept: accept)
        var out = MetricsExposition(format: format)
        let status = self.status()
        let stats = store.stats()

        out.family("mock_apns_info", kind: .gauge, help: "The MockAPNs version; always 1.")
        out.gauge("mock_apns_info", labels: [("version", status.version)], value: 1)
        out.family(
            "mock_apns_uptime_seconds", kind: .gauge, help: "Seconds since the server started.", unit: "seconds")
        out.gauge("mock_apns_uptime_seconds", value: Double(status.uptimeMilliseconds) / 1000)

        out.family(
            "mock_apns_pushes", kind: .counter,
            help:
                "Requests recorded since start, by listener, environment, answered status (0: none, or not yet), "
                + "reason, push type and priority; the same counts as /v1/stats.")
        let series = store.pushSeries().sorted { Self.seriesOrder($0.series, $1.series) }
        for (series, count) in series {
            out.counter("mock_apns_pushes", labels: Self.labels(of: series), value: count)
        }

        if let answerLatency {
            let snapshot = answerLatency.snapshot()
            out.family(
                "mock_apns_answer_latency_seconds", kind: .histogram,
                help: "Seconds from a complete request to its answer handed to HTTP/2 (a held answer: serialized).",
                unit: "seconds")
            out.histogram(
                "mock_apns_answer_latency_seconds", bounds: AnswerLatencyHistogram.bounds,
                cumulativeCounts: snapshot.cumulativeCounts, sum: snapshot.sumSeconds)
        }

        out.family("mock_apns_connections_open", kind: .gauge, help: "APNs (HTTP/2) connections open now.")
        out.gauge("mock_apns_connections_open", value: Double(status.connectionsOpen))
        if let connections {
            var streams: [String: Int] = [:]
            for listener in status.listeners { streams[listener.name] = 0 }
            for entry in connections.connections() { streams[entry.listener, default: 0] += entry.openStreams }
            out.family("mock_apns_streams_open", kind: .gauge, help: "HTTP/2 streams open now, by listener.")
            for (listener, n) in streams.sorted(by: { $0.key < $1.key }) {
                out.gauge("mock_apns_streams_open", labels: [("listener", listener)], value: Double(n))
            }
        }

        out.family("mock_apns_records_stored", kind: .gauge, help: "Delivery records held now.")
        out.gauge("mock_apns_records_stored", value: Double(stats.records))
        out.family("mock_apns_records_capacity", kind: .gauge, help: "Delivery records held at most.")
        out.gauge("mock_apns_records_capacity", value: Double(stats.capacity))
        out.family(
            "mock_apns_records_evicted", kind: .counter,
            help: "Delivery records evicted by the full ring since the last clear (DELETE /v1/deliveries resets it).")
        out.counter("mock_apns_records_evicted", value: stats.evicted)

        out.family(
            "mock_apns_faults_fired", kind: .counter,
            help: "Times each fault rule in force fired (a deleted rule's series goes with it).")
        for rule in faults.rules() {
            out.counter("mock_apns_faults_fired", labels: [("rule", rule.rule.id ?? "")], value: rule.fired)
        }

        let eventStats = events.stats()
        out.family("mock_apns_events", kind: .counter, help: "Connection events recorded since start, by kind.")
        for (kind, n) in eventStats.byKind.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            out.counter("mock_apns_events", labels: [("kind", kind.rawValue)], value: n)
        }
        out.family("mock_apns_events_stored", kind: .gauge, help: "Connection events held now.")
        out.gauge("mock_apns_events_stored", value: Double(eventStats.records))

        return ControlResponse(status: 200, body: out.finished(), contentType: format.contentType)
    }

    /// A push series' labels: `status` as a number, the others empty when none.
    static func labels(of series: PushSeries) -> [(String, String)] {
        [
            ("listener", series.labels.listener), ("environment", series.labels.environment?.rawValue ?? ""),
            ("status", String(series.status)), ("reason", series.reason?.rawValue ?? ""),
            ("push_type", series.labels.pushType?.rawValue ?? ""),
            ("priority", series.labels.priority.map { String($0) } ?? ""),
        ]
    }

    /// A stable order of series: by their labels, in label order.
    static func seriesOrder(_ a: PushSeries, _ b: PushSeries) -> Bool {
        labels(of: a).map(\.1).lexicographicallyPrecedes(labels(of: b).map(\.1))
    }
}
