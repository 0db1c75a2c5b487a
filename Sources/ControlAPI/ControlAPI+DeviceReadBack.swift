import APNsCore
import Devices
import Foundation
import JSONInput
import JSONSupport
import Recording

/// Reading virtual devices' notifications back as Apple's console gives them
/// (docs/device-model.md §7): the delivery log by `apns-unique-id` or `apns-id`, the delivery
/// metrics, and the Simulator's `.apns` file of a record.
extension ControlAPI {
    /// `GET /v1/delivery-log/{id}`: `{"id", "notifications": [...]}`, every record whose
    /// `apns-unique-id` or `apns-id` is `id` (any case), oldest first, each `{"seq", "apnsId",
    /// "uniqueId", "deviceToken", "topic", "pushType", "priority", "status", "reason",
    /// "receivedAt", "virtualDevice", "lifecycleState", "log"}`: `log` is the lifecycle
    /// (`LifecycleEvent.jsonValue()`) for a virtual device; for another token an accepted push's
    /// log is its "Received by APNs" alone, a rejected one's is empty (APNs kept nothing). 404
    /// when no record has the id. An accepted broadcast's entry also has `"fanOut"`: one
    /// `{"deviceToken", "notification", "lifecycleState", "log"}` per subscribed virtual device it
    /// reached (docs/broadcast.md §5), in token order; an empty array when it reached none.
    func deliveryLog(id: String) throws(ControlError) -> ControlResponse {
        guard !id.isEmpty else { throw .badRequest("id must be an apns-unique-id or apns-id") }
        let lower = id.lowercased()
        var records = store.query(DeliveryFilter(apnsID: lower)).deliveries
        let bySeq = Set(records.map(\.seq))
        records += store.query(DeliveryFilter()).deliveries.filter {
            $0.uniqueID?.lowercased() == lower && !bySeq.contains($0.seq)
        }
        records.sort { $0.seq < $1.seq }
        guard !records.isEmpty else {
            throw .notFound("no delivery with apns-unique-id or apns-id \(id) (evicted, cleared, or never sent)")
        }
        devices.catchUp()
        let found = devices.notifications(records.map(\.seq))
        let fanOuts = devices.fanOuts(records.map(\.seq))
        let entries: [JSONNode] = records.map { record in
            let notification = found[record.seq]
            var log: [JSONNode] = []
            if let notification {
                log = notification.events.map { $0.jsonValue() }
            } else if record.status == 200 {
                log = [LifecycleEvent(notification: record.seq, state: .received, at: record.receivedAt).jsonValue()]
            }
            let state: JSONNode =
                notification?.state.map { .string($0.consoleName) }
                ?? (record.status == 200 ? .string(LifecycleState.received.consoleName) : .null)
            var entry: [String: JSONNode] = [
                "seq": .uint(record.seq), "apnsId": .string(record.apnsID),
                "uniqueId": record.uniqueID.map { .string($0) } ?? .null,
                "deviceToken": record.verdict.deviceToken.map { .string($0) } ?? .null,
                "topic": record.verdict.topic.map { .string($0) } ?? .null,
                "pushType": record.verdict.pushType.map { .string($0.rawValue) } ?? .null,
                "priority": .int(Int64(record.verdict.priority ?? 10)),
                "status": .int(Int64(record.status)), "reason": record.reason.map { .string($0.rawValue) } ?? .null,
                "receivedAt": .string(ISO8601Timestamp.format(epochSeconds: record.receivedAt)),
                "virtualDevice": .bool(notification != nil), "lifecycleState": state, "log": .array(log),
            ]
            if record.kind == .broadcast, record.status == 200 {
                entry["fanOut"] = .array(
                    (fanOuts[record.seq] ?? []).map { copy in
                        [
                            "deviceToken": .string(copy.token), "notification": .uint(copy.id),
                            "lifecycleState": copy.state.map { .string($0.consoleName) } ?? .null,
                            "log": .array(copy.events.map { $0.jsonValue() }),
                        ]
                    })
            }
            return .object(entry)
        }
        return ControlResponse(status: 200, json: ["id": .string(id), "notifications": .array(entries)])
    }

    /// `GET /v1/delivery-metrics?from=&to=`: `{"from", "to" (ISO 8601 or null), "total", "byPushType":
    /// {"alert": counts}, "byPriority": {"10": counts}}`, counts `{"received", "delivered",
    /// "deliveredFromStorage", "storedDeviceOffline", "storedPowerConsiderations", "discarded":
    /// {cause: N}, "discardedFromStorage": {cause: N}, "replaced"}` over the transitions of
    /// virtual devices' notifications stamped in the window (server clock; `from` and `to` are
    /// ISO 8601 or milliseconds since the epoch, both included, each optional).
    func deliveryMetrics(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        func time(_ name: String) throws(ControlError) -> Double? {
            guard let text = query[name] else { return nil }
            if let ms = Int64(text), let stamp = ISO8601Timestamp(epochMilliseconds: ms) {
                return Double(stamp.epochMilliseconds) / 1000
            }
            if let stamp = ISO8601Timestamp(text) { return Double(stamp.epochMilliseconds) / 1000 }
            throw .badRequest(
                "\(name) must be milliseconds since the epoch or an ISO 8601 date-time like 2026-11-30T08:49:03.123Z, got \(InputError.quoted(text))"
            )
        }
        let from = try time("from"), to = try time("to")
        if let from, let to, from > to { throw .badRequest("from must not be after to") }
        let metrics = devices.metrics(from: from, to: to)
        func stamp(_ seconds: Double?) -> JSONNode {
            seconds.map { .string(ISO8601Timestamp.format(epochSeconds: $0)) } ?? .null
        }
        return ControlResponse(
            status: 200,
            json: [
                "from": stamp(from), "to": stamp(to), "total": Self.json(metrics.total),
                "byPushType": .object(metrics.byPushType.mapValues(Self.json)),
                "byPriority": .object(
                    Dictionary(uniqueKeysWithValues: metrics.byPriority.map { (String($0.key), Self.json($0.value)) })),
            ])
    }

    static func json(_ counts: DeliveryMetrics.Counts) -> JSONNode {
        [
            "received": .int(Int64(counts.received)), "delivered": .int(Int64(counts.delivered)),
            "deliveredFromStorage": .int(Int64(counts.deliveredFromStorage)),
            "storedDeviceOffline": .int(Int64(counts.storedDeviceOffline)),
            "storedPowerConsiderations": .int(Int64(counts.storedPowerConsiderations)),
            "discarded": .object(counts.discarded.mapValues { .int(Int64($0)) }),
            "discardedFromStorage": .object(counts.discardedFromStorage.mapValues { .int(Int64($0)) }),
            "replaced": .int(Int64(counts.replaced)),
        ]
    }

    /// `GET /v1/deliveries/{seq}/apns`: the record's push as the Simulator's `.apns` file
    /// (`SimulatorPushFile.make`: the payload plus `"Simulator Target Bundle"`, the record's topic),
    /// for `xcrun simctl push`. 400 when `seq` is not an integer from 1 (seqs start at 1); 404 when
    /// the record is absent; 409 naming why when it cannot be one (a push APNs did not accept:
    /// answered other than 200, or not answered; no topic, a push type simctl does not take, a
    /// payload that is not a JSON object with `aps`, over 4096 bytes).
    func simulatorFile(seqText: String) throws(ControlError) -> ControlResponse {
        guard let seq = UInt64(seqText), seq >= 1 else {
            throw .badRequest("seq must be an integer from 1 (seqs start at 1), got '\(seqText)'")
        }
        guard let record = store.record(seq: seq) else { throw .notFound("no delivery with seq \(seq)") }
        guard record.status == 200 else {
            let answer: String
            if record.status != 0 {
                answer = "was answered \(record.status)" + (record.reason.map { " \($0.rawValue)" } ?? "")
            } else if let cause = record.unanswered {
                answer = "was never answered (\(cause.rawValue))"
            } else {
                answer = "has no answer yet"
            }
            throw ControlError(
                status: 409,
                message:
                    "delivery \(seq) \(answer): APNs did not accept it, so no device got it; only an accepted push (200) "
                    + "is exported as an .apns file")
        }
        guard let topic = record.verdict.topic else {
            throw ControlError(status: 409, message: "delivery \(seq) has no topic to name the Simulator Target Bundle")
        }
        do {
            let file = try SimulatorPushFile.make(
                payload: record.payload, bundleID: topic, pushType: record.verdict.pushType ?? .alert)
            return ControlResponse(status: 200, body: file)
        } catch {
            throw ControlError(status: 409, message: "delivery \(seq): \(error.description)")
        }
    }
}
