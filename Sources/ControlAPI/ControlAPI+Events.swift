import JSONInput
import JSONSupport
import Recording

/// The `/v1/events` endpoints: connection events (GOAWAY, close, reset, SETTINGS, stalls,
/// listener conditions, opened and closed), listed, cleared and waited for like deliveries.
extension ControlAPI {
    func listEvents(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        let filter = try ConnectionEventFilter(query: query)
        var limit: Int?
        if query["limit"] != nil { limit = try Self.integer("limit", in: query, default: 0, range: 0...Int.max) }
        let result = events.query(filter, limit: limit)
        return ControlResponse(
            status: 200,
            encoding: EventPage(
                events: result.events, evicted: result.evicted, lastSeq: result.lastSeq, more: result.more))
    }

    func clearEvents() -> ControlResponse {
        let cleared = events.clear()
        return ControlResponse(
            status: 200,
            json: [
                "cleared": .int(Int64(cleared)), "lastSeq": .uint(events.lastSeq),
            ])
    }

    /// `GET /v1/events/wait`: the same `count` (default 1) and `timeoutMs` (default 5000, at
    /// most 300000) as the deliveries wait.
    func startEventWait(_ query: [String: String]) throws(ControlError) -> ControlResult {
        let filter = try ConnectionEventFilter(query: query)
        let (count, timeout) = try Self.waitBounds(query)
        var wait = StoreWait(filter: filter, count: count, timeoutMilliseconds: timeout)
        if let response = waitResult(&wait, timedOut: timeout == 0) { return .response(response) }
        return .wait(.events(wait))
    }

    /// Re-evaluates a pending event wait: the answer once at least `wait.count` events match,
    /// or when `timedOut` (always an answer then); nil means keep waiting.
    ///
    /// The answer is 200 `{"complete", "count", "matched", "events": [every matching event,
    /// oldest first], "evicted", "lastSeq"}`. Returns at once without the lock when nothing was
    /// appended or cleared since the last call; otherwise it queries the (small) ring again.
    public func waitResult(_ wait: inout StoreWait<ConnectionEventFilter>, timedOut: Bool) -> ControlResponse? {
        let generation = events.generation
        if !timedOut && generation == wait.seenGeneration { return nil }
        wait.seenGeneration = generation
        let result = events.query(wait.filter)
        let complete = result.events.count >= wait.count
        guard complete || timedOut else { return nil }
        return ControlResponse(
            status: 200,
            encoding: EventWaitAnswer(
                complete: complete, count: wait.count, events: result.events, evicted: result.evicted,
                lastSeq: result.lastSeq, matched: result.events.count))
    }

    /// Re-evaluates a pending long poll of either kind (see the two `waitResult` overloads).
    public func waitResult(_ wait: inout ControlWait, timedOut: Bool) -> ControlResponse? {
        switch wait {
        case .deliveries(var deliveries):
            defer { wait = .deliveries(deliveries) }
            return waitResult(&deliveries, timedOut: timedOut)
        case .events(var events):
            defer { wait = .events(events) }
            return waitResult(&events, timedOut: timedOut)
        case .verification(var verification):
            defer { wait = .verification(verification) }
            return waitResult(&verification, timedOut: timedOut)
        case .send(let ticket):
            return waitResult(ticket, timedOut: timedOut)
        }
    }

    /// The `events` object of `GET /v1/stats`.
    func eventStatsJSON() -> JSONNode {
        let stats = events.stats()
        var byKind: [String: JSONNode] = [:]
        for (kind, n) in stats.byKind { byKind[kind.rawValue] = .uint(n) }
        return [
            "byKind": .object(byKind),
            "capacity": .int(Int64(stats.capacity)),
            "evicted": .uint(stats.evicted),
            "lastSeq": .uint(stats.lastSeq),
            "recorded": .uint(stats.recorded),
            "records": .int(Int64(stats.records)),
        ]
    }
}

/// The `GET /v1/events` answer.
private struct EventPage: Encodable {
    let events: [ConnectionEvent]
    let evicted: UInt64
    let lastSeq: UInt64
    let more: Bool
}

/// The `GET /v1/events/wait` answer.
private struct EventWaitAnswer: Encodable {
    let complete: Bool
    let count: Int
    let events: [ConnectionEvent]
    let evicted: UInt64
    let lastSeq: UInt64
    let matched: Int
}
