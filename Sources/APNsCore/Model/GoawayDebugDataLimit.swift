/// How much debug data one GOAWAY frame carries: a frame's payload is at most the 16,384 bytes
/// every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's initial value, RFC 9113 §4.2), of which the
/// last-stream-id and the error code take 8. Longer debug data is refused where it is given (fault
/// rules, `POST /v1/connections/{id}/goaway`), never cut or dropped: a GOAWAY that cannot be sent
/// must not be recorded as sent.
public enum GoawayDebugDataLimit {
    /// The most debug data one GOAWAY frame carries, in bytes.
    public static let maxBytes = 16_384 - 8

    /// nil when `bytes` fit in one GOAWAY frame, else why not (for an error message naming the field).
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.count > maxBytes else { return nil }
        return "the GOAWAY debug data would be \(bytes.count) bytes; one frame carries at most \(maxBytes)"
    }

    /// `problem(_:)` of the debug data `{"reason": reason}` (`ReasonJSON`) a GOAWAY would carry.
    public static func problem(reason: String) -> String? {
        problem(ReasonJSON.bytes(reason))
    }
}
