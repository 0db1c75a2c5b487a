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
    public static func response(reason: Reason?, timestamp: Int64?, apnsID: String, uniqueID: String?) -> PushResponse {
        var headers: [HeaderField] = []
        headers.reserveCapacity(3)
        guard let reason else {
            headers.append(HeaderField(name: "apns-id", value: apnsID))
            if let uniqueID { headers.append(HeaderField(name: "apns-unique-id", value: uniqueID)) }
            return PushResponse(status: 200, headers: headers)
        }
        headers.append(HeaderField(name: "content-type", value: "application/json"))
        headers.append(HeaderField(name: "apns-id", value: apnsID))
        if let uniqueID { headers.append(HeaderField(name: "apns-unique-id", value: uniqueID)) }
        return PushResponse(status: reason.status, headers: headers, body: body(reason: reason, timestamp: timestamp))
    }

    /// The compact JSON error body: `{"reason":"X"}` or `{"reason":"X","timestamp":N}` for 410.
    public static func body(reason: Reason, timestamp: Int64?) -> [UInt8] {
        // Reason strings are ASCII letters only, so no JSON escaping is needed.
        var text = #"{"reason":""# + reason.rawValue + "\""
        if reason.status == 410, let timestamp { text += #","timestamp":"# + String(timestamp) }
        text += "}"
        return Array(text.utf8)
    }
}
