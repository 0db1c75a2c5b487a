import APNsCore

/// An accepted push as a virtual device's lifecycle sees it (docs/device-model.md §2): the
/// header values from the gateway's verdict (`ValidationResult`: push type, priority,
/// expiration, collapse ID), not parsed again, and the payload's values (`DevicePayload`).
public struct DevicePush: Sendable, Equatable {
    /// Which notification this is: the delivery record's `seq` once wired to the record store.
    public var id: UInt64
    /// The push type the gateway's rules used (sent, or inferred).
    public var pushType: PushType
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `apns-expiration` in Unix epoch seconds; nil when absent, 0 for "one attempt, no storage".
    public var expiration: Int64?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// The body as sent (for launch options and the simulator export).
    public var body: [UInt8]
    /// The body's values.
    public var payload: DevicePayload
    /// How long APNs keeps it for an offline device at most, in seconds; nil: the device
    /// model's `maxStorageSeconds` (30 days). A broadcast on a Most Recent Message Stored
    /// channel sets its channel's limit (8 hours, `BroadcastOptions.storedMessageSeconds`;
    /// docs/broadcast.md §5).
    public var storageLimitSeconds: Double?

    public init(
        id: UInt64, pushType: PushType = .alert, priority: Int = 10, expiration: Int64? = nil,
        collapseID: String? = nil, body: [UInt8]
    ) {
        self.id = id
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.body = body
        payload = DevicePayload(body: body)
    }

    /// The push an accepted request's verdict describes: its push type (alert when none was
    /// determined), priority (10 when absent), expiration and collapse ID; `payload` when the
    /// caller has already read `body` (a repeated body), else read here. Inlinable: the push path
    /// (target MockAPNs) builds it in place, with no copy and destruction of a whole push.
    @inlinable
    public init(id: UInt64, verdict: ValidationResult, body: [UInt8], payload: DevicePayload? = nil) {
        self.id = id
        pushType = verdict.pushType ?? .alert
        priority = verdict.priority ?? 10
        expiration = verdict.expiration
        collapseID = verdict.collapseID
        self.body = body
        if let payload {
            self.payload = payload
        } else {
            self.payload = DevicePayload(body: body)
        }
    }

    /// `apns-expiration` 0, or a date not after `now`: one attempt, no storage (docs/device-model.md §2.2).
    public func isOneAttempt(at now: Double) -> Bool {
        guard let expiration else { return false }
        return expiration == 0 || Double(expiration) <= now
    }
}
