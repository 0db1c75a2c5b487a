import APNsCore

/// Turns a verdict into the exact APNs response (Apple, *Handling notification responses from
/// APNs*; docs/apns-behaviour.md §2, §9).
public enum ResponseBuilder {
    /// - Parameters:
    ///   - reason: the rejection reason, or nil for 200.
    ///   - timestamp: for 410, milliseconds since the epoch (the body's `timestamp`).
    ///   - apnsID: the `apns-id` to answer (echoed or generated).
    ///   - uniqueID: the `apns-unique-id`, sandbox listeners only.
    /// - Returns: 200 with `apns-id` (+ `apns-unique-id`) and no body; or the error status with
    ///   `content-type: application/json`, `apns-id` and `{"reason":...}` (plus `"timestamp"` on 410).
    ///   - status: the status to send, when a fault rule chose one other than the reason's own.
    public static func response(
        reason: Reason?, timestamp: Int64?, apnsID: String, uniqueID: String?,
        status: Int? = nil
    ) -> PushResponse {
        response(
            reason: reason, timestamp: timestamp, apnsID: .text(apnsID), uniqueID: uniqueID.map { .text($0) },
            status: status)
    }

    /// `response(reason:timestamp:apnsID:uniqueID:status:)` with IDs that may be generated bits:
    /// those go in `uuidHeaders`. Fields keep their order (`apns-id`, then `apns-unique-id`): an
    /// `apns-id` given as bits is spelled into `headers` when `apns-unique-id` is text.
    static func response(
        reason: Reason?, timestamp: Int64?, apnsID: ResponseID, uniqueID: ResponseID?,
        status: Int? = nil
    ) -> PushResponse {
        var uuids = UUIDHeaderFields()
        var apnsIDField: HeaderField?
        switch (apnsID, uniqueID) {
        case (.uuid(let bits), nil), (.uuid(let bits), .uuid?):
            uuids.append(bits.field("apns-id"))
        default:
            apnsIDField = HeaderField(name: "apns-id", value: apnsID.text)
        }
        var uniqueIDField: HeaderField?
        switch uniqueID {
        case .uuid(let bits)?: uuids.append(bits.field("apns-unique-id"))
        case .text(let text)?: uniqueIDField = HeaderField(name: "apns-unique-id", value: text)
        case nil: break
        }
        guard let reason else {
            // Array literals: one allocation of the final size, none when both IDs are bits (every
            // accepted push comes here).
            switch (apnsIDField, uniqueIDField) {
            case (nil, nil): return PushResponse(status: 200, headers: [], uuidHeaders: uuids)
            case (let apnsID?, nil): return PushResponse(status: 200, headers: [apnsID], uuidHeaders: uuids)
            case (nil, let unique?): return PushResponse(status: 200, headers: [unique], uuidHeaders: uuids)
            case (let apnsID?, let unique?): return PushResponse(status: 200, headers: [apnsID, unique])
            }
        }
        var headers: [HeaderField] = []
        headers.reserveCapacity(3)
        headers.append(HeaderField(name: "content-type", value: "application/json"))
        if let apnsIDField { headers.append(apnsIDField) }
        if let uniqueIDField { headers.append(uniqueIDField) }
        let status = status ?? reason.status
        return PushResponse(
            status: status, headers: headers,
            body: body(reason: reason, timestamp: status == 410 ? timestamp : nil), uuidHeaders: uuids)
    }

    /// The compact JSON error body: `{"reason":"X"}`, or `{"reason":"X","timestamp":N}` when a
    /// timestamp is given (410 answers only).
    public static func body(reason: Reason, timestamp: Int64?) -> [UInt8] {
        ReasonJSON.bytes(reason, timestamp: timestamp)
    }
}
