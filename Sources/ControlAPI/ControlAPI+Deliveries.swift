import APNsCore
import Devices
import Foundation
import JSONInput
import JSONSupport
import Recording

/// The `/v1/deliveries` endpoints and the long poll.
extension ControlAPI {
    func listDeliveries(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        let filter = withChannelCreate(try DeliveryFilter(query: query))
        var limit: Int?
        if query["limit"] != nil { limit = try Self.integer("limit", in: query, default: 0, range: 0...Int.max) }
        var result: CompactQueryResult
        if let lifecycle = try LifecycleFilter.read(query) {
            result = lifecycleQuery(filter, lifecycle, limit: limit)
        } else {
            result = store.compactQuery(filter, limit: limit)
        }
        return deliveriesResponse(
            DeliveryPage(evicted: result.evicted, lastSeq: result.lastSeq, more: result.more),
            records: result.elements)
    }

    /// `DELETE /v1/deliveries`: the records go, and with them the virtual devices' notifications
    /// joined on them (`DeviceBook.clearNotifications()`; docs/device-model.md §7).
    func clearDeliveries() -> ControlResponse {
        let cleared = store.clear()
        devices.clearNotifications()
        return ControlResponse(
            status: 200,
            json: [
                "cleared": .int(Int64(cleared)), "lastSeq": .uint(store.lastSeq),
            ])
    }

    func delivery(seqText: String) throws(ControlError) -> ControlResponse {
        guard let seq = UInt64(seqText) else {
            throw .badRequest("seq must be a positive integer, got '\(seqText)'")
        }
        guard let record = store.record(seq: seq) else { throw .notFound("no delivery with seq \(seq)") }
        if let notification = devices.notification(seq) {
            return ControlResponse(status: 200, json: Self.joined(record, notification))
        }
        if let id = createdChannel(record) {
            return ControlResponse(status: 200, json: Self.joined(record, createdChannel: id))
        }
        if record.kind == .broadcast, devices.hasNotifications {
            let copies = devices.fanOut(of: seq)
            if !copies.isEmpty { return ControlResponse(status: 200, json: Self.joined(record, fanOut: copies)) }
        }
        return ControlResponse(status: 200, encoding: record)
    }

    /// The records matching `filter` and `lifecycle` (docs/device-model.md §7), oldest first, at
    /// most `limit`: the store's matches, kept when their notification in the device book matches.
    func lifecycleQuery(_ filter: DeliveryFilter, _ lifecycle: LifecycleFilter, limit: Int?) -> CompactQueryResult {
        var result = store.compactQuery(filter)
        devices.catchUp()
        let found = devices.notifications(result.elements.map(\.seq))
        result.elements.removeAll { !lifecycle.matches(found[$0.seq]) }
        if let limit, result.elements.count > max(limit, 0) {
            result.elements.removeLast(result.elements.count - max(limit, 0))
            result.more = true
        } else {
            result.more = false
        }
        return result
    }

    func startWait(_ query: [String: String]) throws(ControlError) -> ControlResult {
        let filter = withChannelCreate(try DeliveryFilter(query: query))
        let (count, timeout) = try Self.waitBounds(query)
        var wait = StoreWait(filter: filter, count: count, timeoutMilliseconds: timeout)
        wait.lifecycle = try LifecycleFilter.read(query)
        if let response = waitResult(&wait, timedOut: timeout == 0) { return .response(response) }
        return .wait(.deliveries(wait))
    }

    /// Re-evaluates a pending wait. Returns the answer when at least `wait.count` records match,
    /// or when `timedOut` (always an answer then); `nil` means keep waiting and call again.
    ///
    /// The answer is 200 `{"complete": Bool, "count": <wanted>, "matched": <found>, "deliveries":
    /// [every matching record, oldest first], "evicted", "lastSeq"}`; `complete` is false when the
    /// timeout came first. Cheap to call every few milliseconds: when the store's `generation`
    /// has not changed it returns at once without the lock, and otherwise it counts only the
    /// records appended since the last call.
    public func waitResult(_ wait: inout StoreWait<DeliveryFilter>, timedOut: Bool) -> ControlResponse? {
        if let lifecycle = wait.lifecycle { return lifecycleWaitResult(&wait, lifecycle, timedOut: timedOut) }
        let generation = store.generation
        if !timedOut && generation == wait.seenGeneration { return nil }
        wait.seenGeneration = generation
        let progress = store.countMatching(wait.filter, clears: wait.seenClears, afterSeq: wait.scannedSeq)
        wait.matched = (progress.restarted ? 0 : wait.matched) + progress.count
        wait.scannedSeq = progress.lastSeq
        wait.seenClears = progress.clears
        guard wait.matched >= wait.count || timedOut else { return nil }
        // The running count can include records evicted since: confirm with a full query.
        let result = store.compactQuery(wait.filter)
        let complete = result.elements.count >= wait.count
        if !complete && !timedOut {
            wait.seenClears = .max  // recount from scratch at the next change
            wait.matched = 0
            return nil
        }
        return deliveriesResponse(
            WaitAnswer(
                complete: complete, count: wait.count, evicted: result.evicted,
                lastSeq: result.lastSeq, matched: result.elements.count),
            records: result.elements)
    }

    /// A wait on lifecycle states: the devices are caught up with the clock at every call (a
    /// burst or an expiration may fall due), and the records are matched again whenever the store
    /// or the device book changed.
    private func lifecycleWaitResult(
        _ wait: inout StoreWait<DeliveryFilter>, _ lifecycle: LifecycleFilter, timedOut: Bool
    ) -> ControlResponse? {
        devices.catchUp()
        let generation = store.generation &+ devices.generation &* 0x9E37_79B9_7F4A_7C15
        if !timedOut && generation == wait.seenGeneration { return nil }
        wait.seenGeneration = generation
        let result = lifecycleQuery(wait.filter, lifecycle, limit: nil)
        let complete = result.elements.count >= wait.count
        guard complete || timedOut else { return nil }
        return deliveriesResponse(
            WaitAnswer(
                complete: complete, count: wait.count, evicted: result.evicted, lastSeq: result.lastSeq,
                matched: result.elements.count),
            records: result.elements)
    }

    /// The channel a create's record made (docs/broadcast.md §4): a channel request answered 201
    /// whose seq the channel store noted; nil for any other record.
    func createdChannel(_ record: DeliveryRecord) -> String? {
        guard record.kind == .channel, record.status == 201 else { return nil }
        return channels.channelCreated(bySeq: record.seq)
    }

    /// A create's record with `channelId` the channel it made (its request named none).
    static func joined(_ record: DeliveryRecord, createdChannel id: String) -> JSONNode {
        guard let encoded = try? JSONEncoder().encode(record),
            case .object(var object)? = try? JSONNode(decoding: [UInt8](encoded))
        else { return .null }
        object["channelId"] = .string(id)
        return .object(object)
    }

    /// A broadcast's record with what it fanned out to joined (docs/broadcast.md §5): `fanOut`,
    /// the count, and `fanOutDeliveries`, one `{"notification": id, "deviceToken", "lifecycle",
    /// "lifecycleState", "device", "interactions"}` per subscribed device, in token order.
    static func joined(_ record: DeliveryRecord, fanOut copies: [DeviceBook.Notification]) -> JSONNode {
        guard let encoded = try? JSONEncoder().encode(record),
            case .object(var object)? = try? JSONNode(decoding: [UInt8](encoded))
        else { return .null }
        object["fanOut"] = .int(Int64(copies.count))
        object["fanOutDeliveries"] = .array(copies.map { .object($0.fanOutMembers()) })
        return .object(object)
    }

    /// A record of a push to a virtual device with its lifecycle joined (`DeviceBook.Notification.jsonMembers()`).
    static func joined(_ record: DeliveryRecord, _ notification: DeviceBook.Notification) -> JSONNode {
        guard let encoded = try? JSONEncoder().encode(record),
            case .object(var object)? = try? JSONNode(decoding: [UInt8](encoded))
        else { return .null }
        for (key, value) in notification.jsonMembers() { object[key] = value }
        return .object(object)
    }

    /// A 200 answer: `envelope` with `records` as its `deliveries` (see `DeliveryListJSON`); a
    /// record of a push to a virtual device has its lifecycle joined.
    private func deliveriesResponse(
        _ envelope: some Encodable,
        records: [(seq: UInt64, record: CompactRecord)]
    ) -> ControlResponse {
        let join = recordJoin(records.map(\.seq))
        guard let body = DeliveryListJSON.body(envelope: envelope, records: records, join: join) else {
            return ControlResponse(
                status: 500, body: Array(#"{"error":"the answer could not be encoded as JSON"}"#.utf8))
        }
        return ControlResponse(status: 200, body: body)
    }
}

extension ControlAPI {
    /// The whole JSON of those of the records `seqs` that were pushes to a virtual device (with
    /// their lifecycle joined), broadcasts fanned out to devices (with their copies) or channel
    /// creates (with the channel made): `DeliveryListJSON`'s `join`; nil when none of them was.
    func recordJoin(_ seqs: [UInt64]) -> (@Sendable (UInt64, DeliveryRecord) -> [UInt8]?)? {
        var joined: [UInt64: DeviceBook.Notification] = [:]
        var fanOuts: [UInt64: [DeviceBook.Notification]] = [:]
        if !devices.isEmpty || devices.hasNotifications {
            devices.catchUp()
            joined = devices.notifications(seqs)
            fanOuts = devices.fanOuts(seqs)
        }
        let channels = self.channels
        let creates = channels.notedCreates
        guard !joined.isEmpty || !fanOuts.isEmpty || creates else { return nil }
        let found = joined, copies = fanOuts
        return { seq, record in
            if let notification = found[seq] {
                return ControlResponse(status: 200, json: Self.joined(record, notification)).body
            }
            if let fanOut = copies[seq] {
                return ControlResponse(status: 200, json: Self.joined(record, fanOut: fanOut)).body
            }
            guard creates, record.kind == .channel, record.status == 201,
                let id = channels.channelCreated(bySeq: seq)
            else { return nil }
            return ControlResponse(status: 200, json: Self.joined(record, createdChannel: id)).body
        }
    }
}

/// The `GET /v1/deliveries` answer, without its records: `DeliveryListJSON` puts them into the
/// empty `deliveries` array.
private struct DeliveryPage: Encodable {
    let deliveries: [DeliveryRecord] = []
    let evicted: UInt64
    let lastSeq: UInt64
    let more: Bool
}

/// The `GET /v1/deliveries/wait` answer, without its records (as `DeliveryPage`).
private struct WaitAnswer: Encodable {
    let complete: Bool
    let count: Int
    let deliveries: [DeliveryRecord] = []
    let evicted: UInt64
    let lastSeq: UInt64
    let matched: Int
}
