/// What validation concluded about one request: the APNs answer plus everything parsed on the
/// way, so the record can be built without parsing twice. Produced by `RequestValidator`.
///
/// The text fields live in one copy-on-write box: a verdict is copied several times per push
/// (the connection's memo, the gateway, the record), and a copy then costs one reference count
/// instead of one per string.
public struct ValidationResult: Sendable, Equatable {
    /// The rejection reason, or `nil` when the push is accepted (status 200).
    public var reason: Reason?
    /// For 410 answers: when the device token stopped being valid, in milliseconds since the
    /// Unix epoch (sent as the body's `timestamp`).
    public var timestamp: Int64?
    /// The push type used for the rules: the one sent when valid, else the one inferred from
    /// the payload (background for content-available-only, else alert).
    public var pushType: PushType?
    /// `apns-priority` (10, 5 or 1); 10 when absent.
    public var priority: Int?
    /// `apns-expiration` in Unix epoch seconds.
    public var expiration: Int64?
    private var texts: Texts

    /// The device token from `:path`, lowercased; `nil` when the path carried none.
    public var deviceToken: String? {
        get { texts.deviceToken }
        _modify {
            uniqueTexts()
            yield &texts.deviceToken
        }
    }
    /// `apns-topic` as sent, or the default topic applied.
    public var topic: String? {
        get { texts.topic }
        _modify {
            uniqueTexts()
            yield &texts.topic
        }
    }
    /// `apns-push-type` exactly as sent.
    public var pushTypeSent: String? {
        get { texts.pushTypeSent }
        _modify {
            uniqueTexts()
            yield &texts.pushTypeSent
        }
    }
    /// `apns-collapse-id` as sent.
    public var collapseID: String? {
        get { texts.collapseID }
        _modify {
            uniqueTexts()
            yield &texts.collapseID
        }
    }
    /// `apns-id` as sent and valid; `nil` when absent or invalid (the gateway then generates one).
    public var apnsID: String? {
        get { texts.apnsID }
        _modify {
            uniqueTexts()
            yield &texts.apnsID
        }
    }
    /// Payload lint warnings: each names the Apple rule it refers to.
    public var lints: [String] {
        get { texts.lints }
        _modify {
            uniqueTexts()
            yield &texts.lints
        }
    }
    /// The JSON parser's message when the body is not a JSON object.
    public var payloadError: String? {
        get { texts.payloadError }
        _modify {
            uniqueTexts()
            yield &texts.payloadError
        }
    }

    /// The HTTP status to answer: 200 when accepted, else the reason's status.
    public var status: Int { reason?.status ?? 200 }

    public init(
        reason: Reason? = nil, timestamp: Int64? = nil, deviceToken: String? = nil,
        topic: String? = nil, pushTypeSent: String? = nil, pushType: PushType? = nil,
        priority: Int? = nil, expiration: Int64? = nil, collapseID: String? = nil,
        apnsID: String? = nil, lints: [String] = [], payloadError: String? = nil
    ) {
        self.reason = reason
        self.timestamp = timestamp
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        texts = Texts(
            deviceToken: deviceToken, topic: topic, pushTypeSent: pushTypeSent, collapseID: collapseID,
            apnsID: apnsID, lints: lints, payloadError: payloadError)
    }

    /// `init(reason:timestamp:deviceToken:...)` into `spare`'s text box when `spare` is its only
    /// owner (a verdict its connection's memo no longer needs, `ValidationMemo.takeSpareVerdict`):
    /// the same verdict, without allocating a box and freeing another per push. A box that is
    /// shared, or no spare, gets a new box.
    package init(
        reusing spare: consuming ValidationResult?, reason: Reason?, timestamp: Int64?, deviceToken: String?,
        topic: String?, pushTypeSent: String?, pushType: PushType?, priority: Int?, expiration: Int64?,
        collapseID: String?, apnsID: String?, lints: [String], payloadError: String?
    ) {
        guard var reused = spare.take(), isKnownUniquelyReferenced(&reused.texts) else {
            self.init(
                reason: reason, timestamp: timestamp, deviceToken: deviceToken, topic: topic,
                pushTypeSent: pushTypeSent, pushType: pushType, priority: priority, expiration: expiration,
                collapseID: collapseID, apnsID: apnsID, lints: lints, payloadError: payloadError)
            return
        }
        self = consume reused
        self.reason = reason
        self.timestamp = timestamp
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        let box = texts
        box.deviceToken = deviceToken
        box.topic = topic
        box.pushTypeSent = pushTypeSent
        box.collapseID = collapseID
        box.apnsID = apnsID
        box.lints = lints
        box.payloadError = payloadError
    }

    /// The text box's identity (tests of `init(reusing:...)`: an identity holds no reference).
    package var textsIdentity: ObjectIdentifier { ObjectIdentifier(texts) }

    public static func == (a: ValidationResult, b: ValidationResult) -> Bool {
        a.reason == b.reason && a.timestamp == b.timestamp && a.pushType == b.pushType && a.priority == b.priority
            && a.expiration == b.expiration && (a.texts === b.texts || a.texts.equals(b.texts))
    }

    /// Whether `other` has the same bytes as this verdict in every field but `deviceToken`
    /// (`==` compares text by canonical equivalence: `é` precomposed equals `é` decomposed, whose
    /// records differ). Read in place: a read through the getters retains each string.
    package func sameBytes(exceptDeviceToken other: ValidationResult) -> Bool {
        guard reason == other.reason, timestamp == other.timestamp, pushType == other.pushType,
            priority == other.priority, expiration == other.expiration
        else { return false }
        let a = texts, b = other.texts
        if a === b { return true }
        return UTF8Bytes.equal(a.topic, b.topic) && UTF8Bytes.equal(a.pushTypeSent, b.pushTypeSent)
            && UTF8Bytes.equal(a.collapseID, b.collapseID) && UTF8Bytes.equal(a.apnsID, b.apnsID)
            && UTF8Bytes.equal(a.payloadError, b.payloadError) && a.lints.count == b.lints.count
            && zip(a.lints, b.lints).allSatisfy { UTF8Bytes.equal($0, $1) }
    }

    /// Copies the box before a write unless this verdict is its only owner.
    private mutating func uniqueTexts() {
        if !isKnownUniquelyReferenced(&texts) { texts = texts.copy() }
    }

    /// The text fields. Mutated only through a verdict that owns it alone (`uniqueTexts`), so
    /// sharing it between threads is safe, and no access can overlap a write: the fields skip
    /// dynamic exclusivity checks.
    private final class Texts: @unchecked Sendable {
        @exclusivity(unchecked) var deviceToken: String?
        @exclusivity(unchecked) var topic: String?
        @exclusivity(unchecked) var pushTypeSent: String?
        @exclusivity(unchecked) var collapseID: String?
        @exclusivity(unchecked) var apnsID: String?
        @exclusivity(unchecked) var lints: [String]
        @exclusivity(unchecked) var payloadError: String?

        init(
            deviceToken: String?, topic: String?, pushTypeSent: String?, collapseID: String?, apnsID: String?,
            lints: [String], payloadError: String?
        ) {
            self.deviceToken = deviceToken
            self.topic = topic
            self.pushTypeSent = pushTypeSent
            self.collapseID = collapseID
            self.apnsID = apnsID
            self.lints = lints
            self.payloadError = payloadError
        }

        func copy() -> Texts {
            Texts(
                deviceToken: deviceToken, topic: topic, pushTypeSent: pushTypeSent, collapseID: collapseID,
                apnsID: apnsID, lints: lints, payloadError: payloadError)
        }

        func equals(_ other: Texts) -> Bool {
            deviceToken == other.deviceToken && topic == other.topic && pushTypeSent == other.pushTypeSent
                && collapseID == other.collapseID && apnsID == other.apnsID && lints == other.lints
                && payloadError == other.payloadError
        }
    }
}
