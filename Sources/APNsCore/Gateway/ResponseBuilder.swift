/// Turns a verdict into the exact APNs response (Apple, *Handling notification responses from
/// APNs*; spec sections 2 and 9).
public enum ResponseBuilder {
    /// - Parameters:
    ///   - reason: the rejection reason, or nil for 200.
    ///   - timestamp: for 410, milliseconds since the epoch (the body's `timestamp`).
    ///   - apnsID: the `apns-id` to answer (echoed or generated).
    ///   - uniqueID: the `apns-unique-id`, sandbox listeners only.
    /// - Returns: 200 with `apns-id` (+ `apns-unique-id`) and no body; or the error status with
    ///   `content-type: application/json`, `apns-id` and `{"reason":...}` (plus `"timestamp"` on 410).
    ///   - status: the status to send, when a fault rule chose one other than the reason's own.
    public static func response(reason: Reason?, timestamp: Int64?, apnsID: String, uniqueID: String?,
                                status: Int? = nil) -> PushResponse {
        guard let reason else {
            // Array literals: one allocation of the final size (every accepted push comes here).
            let apnsIDField = HeaderField(name: "apns-id", value: apnsID)
            guard let uniqueID else { return PushResponse(status: 200, headers: [apnsIDField]) }
            return PushResponse(status: 200, headers: [apnsIDField, HeaderField(name: "apns-unique-id", value: uniqueID)])
        }
        var headers: [HeaderField] = []
        headers.reserveCapacity(3)
        headers.append(HeaderField(name: "content-type", value: "application/json"))
        headers.append(HeaderField(name: "apns-id", value: apnsID))
        if let uniqueID { headers.append(HeaderField(name: "apns-unique-id", value: uniqueID)) }
        let status = status ?? reason.status
        return PushResponse(status: status, headers: headers,
                            body: body(reason: reason, timestamp: status == 410 ? timestamp : nil))
    }

    /// The compact JSON error body: `{"reason":"X"}`, or `{"reason":"X","timestamp":N}` when a
    /// timestamp is given (410 answers only).
    public static func body(reason: Reason, timestamp: Int64?) -> [UInt8] {
        // Reason strings are ASCII letters only, so no JSON escaping is needed.
        var text = #"{"reason":""# + reason.rawValue + "\""
        if let timestamp { text += #","timestamp":"# + String(timestamp) }
        text += "}"
        return Array(text.utf8)
    }
}
