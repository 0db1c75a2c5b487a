import APNsCore
import JSONInput
import JSONSupport

/// Which pushes a fault rule applies to: every condition given must hold; an empty match
/// selects every push (issue "Fault injection"; docs/field-cases.md C1-C16).
///
/// JSON (every key optional):
/// ```json
/// {"token": "<hex>", "tokenPrefix": "ab", "topic": "com.example.app", "pushType": "alert",
///  "priority": 10, "listener": "sandbox", "environment": "sandbox", "keyId": "ABC123DEFG",
///  "teamId": "DEF123GHIJ", "connection": 7, "nthConnection": 2,
///  "headers": {"authorization": {"present": true}, "apns-collapse-id": {"equals": "x"}},
///  "payload": [{"path": "aps.alert.title", "equals": "Hi"}],
///  "nth": 3, "everyKth": 2, "probability": 0.25, "seed": 42,
///  "probabilityRamp": {"from": 0, "to": 0.5, "durationMs": 60000}, "connectionShare": 0.25,
///  "from": "2026-11-30T08:00:00Z", "until": 1796032800000, "kind": "broadcast", "channelId": "AAAA",
///  "protocol": "http2"}
/// ```
///
/// Counting: `nth` and `everyKth` count the requests that meet every other static condition
/// (all but `nth`, `everyKth`, `probability`) and that reach this rule (an earlier rule that
/// answers a push hides it from later ones). `probability` is drawn only for requests that
/// pass the counting conditions.
///
/// `connectionShare` takes a seeded share of connections: each connection (a reconnection is a
/// new connection, drawn anew) is in with chance `connectionShare`, drawn from `seed` and the
/// connection's rank of acceptance, so the same seed picks the same connection numbers on
/// every run, whatever their pushes. `probabilityRamp` (`FaultRamp`) replaces `probability` by
/// one that changes linearly over time.
public struct FaultMatch: Sendable, Equatable, Codable {
    /// The device token, compared case-insensitively (stored lowercase).
    public var token: String?
    /// A prefix of the device token, case-insensitive (stored lowercase).
    public var tokenPrefix: String?
    /// `apns-topic` (or the default topic applied), exact.
    public var topic: String?
    /// The push type as sent, or as inferred when none was sent (`ValidationResult.pushType`).
    public var pushType: PushType?
    /// `apns-priority`: 1, 5 or 10 (10 when absent from the request).
    public var priority: Int?
    /// The listener's name.
    public var listener: String?
    public var environment: APNsEnvironment?
    /// The provider token's Key ID (`kid`) and Team ID (`iss`); JSON `keyId` and `teamId`.
    public var keyID: String?
    public var teamID: String?
    /// One connection, by its id (`PushOrigin.id`, from 1).
    public var connection: UInt64?
    /// The Nth connection accepted, 1-based (`FaultContext.connectionOrdinal`).
    public var nthConnection: UInt64?
    /// Conditions on request headers, by lowercase name.
    public var headers: [String: HeaderCondition]?
    /// Conditions on the JSON payload; all must hold.
    public var payload: [PayloadCondition]?
    /// Only the Nth candidate request (1-based); the rule is spent after it.
    public var nth: Int?
    /// Only every Kth candidate request: the Kth, 2Kth, ...
    public var everyKth: Int?
    /// The chance, 0 to 1, that a candidate request matches.
    public var probability: Double?
    /// The seed of `probability`'s generator (SplitMix64): the same seed gives the same
    /// sequence of outcomes. Absent: the engine picks one and shows it in the rule (below 2^53,
    /// so it survives any JSON reader).
    public var seed: UInt64?
    /// A probability rising (or falling) linearly over time (`FaultRamp`); not with `probability`.
    public var probabilityRamp: FaultRamp?
    /// The share of connections, 0 to 1, this rule takes (drawn per connection from `seed`).
    public var connectionShare: Double?
    /// Time window, inclusive start and exclusive end.
    public var from: ISO8601Timestamp?
    public var until: ISO8601Timestamp?
    /// The request's kind: `push` (the default: a rule without `kind` selects device pushes
    /// only), `channel` or `broadcast` (docs/broadcast.md §4).
    public var kind: RequestKind?
    /// The channel a channel or broadcast request names, exact; JSON `channelId`.
    public var channelID: String?
    /// The protocol the push came by; JSON `protocol`: `http2` (the default: a rule without it
    /// selects HTTP/2 requests only) or `binary`, the legacy binary gateway, whose rules take only
    /// the actions with a binary meaning (`FaultAction.hasBinaryMeaning`; docs/legacy-binary.md §8).
    public var transport: TransportProtocol?

    public init(
        token: String? = nil, tokenPrefix: String? = nil, topic: String? = nil, pushType: PushType? = nil,
        priority: Int? = nil, listener: String? = nil, environment: APNsEnvironment? = nil,
        keyID: String? = nil, teamID: String? = nil, connection: UInt64? = nil, nthConnection: UInt64? = nil,
        headers: [String: HeaderCondition]? = nil, payload: [PayloadCondition]? = nil,
        nth: Int? = nil, everyKth: Int? = nil, probability: Double? = nil, seed: UInt64? = nil,
        from: ISO8601Timestamp? = nil, until: ISO8601Timestamp? = nil, probabilityRamp: FaultRamp? = nil,
        connectionShare: Double? = nil, kind: RequestKind? = nil, channelID: String? = nil,
        transport: TransportProtocol? = nil
    ) {
        self.transport = transport
        self.kind = kind
        self.channelID = channelID
        self.token = token
        self.tokenPrefix = tokenPrefix
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.listener = listener
        self.environment = environment
        self.keyID = keyID
        self.teamID = teamID
        self.connection = connection
        self.nthConnection = nthConnection
        self.headers = headers
        self.payload = payload
        self.nth = nth
        self.everyKth = everyKth
        self.probability = probability
        self.seed = seed
        self.from = from
        self.until = until
        self.probabilityRamp = probabilityRamp
        self.connectionShare = connectionShare
        normalize()
    }

    /// True when some condition draws from `seed` (`probability`, `probabilityRamp`, `connectionShare`).
    var draws: Bool { probability != nil || probabilityRamp != nil || connectionShare != nil }

    /// True when no condition is given.
    public var isEmpty: Bool { self == FaultMatch() }

    /// Lowercases the token, the token prefix and header names, as they are compared: done by
    /// `init`, and again when a rule is added (its properties may have been set since).
    mutating func normalize() {
        token = token?.lowercased()
        tokenPrefix = tokenPrefix?.lowercased()
        headers = headers.map {
            Dictionary($0.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func validate(at path: String) throws(FaultRuleError) {
        func fail(_ key: String, _ message: String) -> FaultRuleError {
            FaultRuleError(field: FaultRuleError.join(path, key), message: message)
        }
        for (key, value) in [
            ("token", token), ("tokenPrefix", tokenPrefix), ("topic", topic), ("listener", listener),
            ("keyId", keyID), ("teamId", teamID), ("channelId", channelID),
        ] {
            if let value, value.isEmpty { throw fail(key, "must not be empty") }
        }
        if let priority, ![1, 5, 10].contains(priority) {
            throw fail("priority", "must be 1, 5 or 10, got \(priority)")
        }
        if let connection, connection < 1 { throw fail("connection", "must be at least 1, got \(connection)") }
        if let nthConnection, nthConnection < 1 {
            throw fail("nthConnection", "must be at least 1, got \(nthConnection)")
        }
        for name in (headers ?? [:]).keys.sorted() where name.isEmpty || name.hasPrefix(":") {
            throw fail(
                "headers",
                "header names must be regular (not empty, not a :pseudo-header), got \(InputError.quoted(name))")
        }
        for (index, condition) in (payload ?? []).enumerated() {
            try condition.validate(at: FaultRuleError.join(path, "payload[\(index)]"))
        }
        if let nth, nth < 1 { throw fail("nth", "must be at least 1, got \(nth)") }
        if let everyKth, everyKth < 1 { throw fail("everyKth", "must be at least 1, got \(everyKth)") }
        if let probability, !(probability >= 0 && probability <= 1) {
            throw fail("probability", "must be within 0 and 1, got \(probability)")
        }
        if let probabilityRamp {
            if probability != nil { throw fail("probabilityRamp", "either probability or probabilityRamp, not both") }
            try probabilityRamp.validate(at: FaultRuleError.join(path, "probabilityRamp"))
        }
        if let connectionShare, !(connectionShare >= 0 && connectionShare <= 1) {
            throw fail("connectionShare", "must be within 0 and 1, got \(connectionShare)")
        }
        if seed != nil && !draws { throw fail("seed", "only with probability, probabilityRamp or connectionShare") }
        if let from, let until, until <= from { throw fail("until", "must be after from (\(from)), got \(until)") }
    }

    private enum Key: String, CaseIterable {
        case token, tokenPrefix, topic, pushType, priority, listener, environment
        case keyID = "keyId", teamID = "teamId", connection
        case nthConnection, headers, payload, nth, everyKth, probability, seed, from, until
        case probabilityRamp, connectionShare, kind
        case channelID = "channelId"
        case transport = "protocol"
    }

    public init(from decoder: any Decoder) throws {
        let o = try FaultObjectReader(decoder, keys: Key.allCases.map(\.rawValue))
        let text = "a non-empty string"
        self.init(
            token: try o.optional("token", String.self, expected: "a hex device token"),
            tokenPrefix: try o.optional("tokenPrefix", String.self, expected: "hex digits"),
            topic: try o.optional("topic", String.self, expected: text),
            pushType: try Self.pushType(o),
            priority: try o.optional("priority", Int.self, expected: "1, 5 or 10"),
            listener: try o.optional("listener", String.self, expected: "a listener name"),
            environment: try o.optional("environment", APNsEnvironment.self, expected: "\"sandbox\" or \"production\""),
            keyID: try o.optional("keyId", String.self, expected: text),
            teamID: try o.optional("teamId", String.self, expected: text),
            connection: try o.optional("connection", UInt64.self, expected: "a connection id (an integer from 1)"),
            nthConnection: try o.optional("nthConnection", UInt64.self, expected: "an integer from 1"),
            headers: try o.optional(
                "headers", [String: HeaderCondition].self, expected: "an object of header name to condition"),
            payload: try o.optional(
                "payload", [PayloadCondition].self, expected: "an array of {\"path\", \"equals\"} objects"),
            nth: try o.optional("nth", Int.self, expected: "an integer from 1"),
            everyKth: try o.optional("everyKth", Int.self, expected: "an integer from 1"),
            probability: try o.optional("probability", Double.self, expected: "a number within 0 and 1"),
            seed: try o.optional("seed", UInt64.self, expected: "an integer from 0 to 18446744073709551615"),
            from: try o.optional("from", ISO8601Timestamp.self, expected: ISO8601Timestamp.inputExpectation),
            until: try o.optional("until", ISO8601Timestamp.self, expected: ISO8601Timestamp.inputExpectation),
            probabilityRamp: try o.optional(
                "probabilityRamp", FaultRamp.self, expected: "an object {\"from\", \"to\", \"durationMs\"}"),
            connectionShare: try o.optional("connectionShare", Double.self, expected: "a number within 0 and 1"),
            kind: try o.optional("kind", RequestKind.self, expected: "\"push\", \"channel\" or \"broadcast\""),
            channelID: try o.optional("channelId", String.self, expected: text),
            transport: try o.optional("protocol", TransportProtocol.self, expected: "\"http2\" or \"binary\""))
        try o.validated { () throws(FaultRuleError) in try validate(at: o.path) }
    }

    /// `pushType` with a "did you mean" for a near miss.
    private static func pushType(_ object: FaultObjectReader) throws -> PushType? {
        let names = PushType.allCases.map(\.rawValue)
        guard
            let text = try object.optional("pushType", String.self, expected: "one of \(names.joined(separator: ", "))")
        else { return nil }
        guard let type = PushType(rawValue: text) else {
            let near = ClosestMatch.hint(text, among: names)
            throw object.error(
                "pushType",
                "unknown push type \(InputError.quoted(text))\(near); expected one of \(names.joined(separator: ", "))"
            )
        }
        return type
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: FaultCodingKey.self)
        func put<T: Encodable>(_ key: Key, _ value: T?) throws {
            try c.encodeIfPresent(value, forKey: FaultCodingKey(key.rawValue))
        }
        try put(.token, token)
        try put(.tokenPrefix, tokenPrefix)
        try put(.topic, topic)
        try put(.pushType, pushType)
        try put(.priority, priority)
        try put(.listener, listener)
        try put(.environment, environment)
        try put(.keyID, keyID)
        try put(.teamID, teamID)
        try put(.connection, connection)
        try put(.nthConnection, nthConnection)
        try put(.headers, headers)
        try put(.payload, payload)
        try put(.nth, nth)
        try put(.everyKth, everyKth)
        try put(.probability, probability)
        try put(.seed, seed)
        try put(.from, from)
        try put(.until, until)
        try put(.probabilityRamp, probabilityRamp)
        try put(.connectionShare, connectionShare)
        try put(.kind, kind)
        try put(.channelID, channelID)
        try put(.transport, transport)
    }
}
