import APNsCore
import JSONInput
import JSONSupport

/// Which connection events a query or wait wants. Every field is optional; set fields must all
/// match (AND). The same names are the control API's query parameters of `/v1/events`.
public struct ConnectionEventFilter: Sendable, Equatable {
    /// The listener's name, exactly.
    public var listener: String?
    /// The listener's environment.
    public var environment: APNsEnvironment?
    /// The connection's id; refused connections (no id) never match.
    public var connectionID: UInt64?
    /// Any of these kinds (the query parameter takes a comma-separated list).
    public var kinds: Set<ConnectionEventKind>?
    /// The origin's name (`ConnectionEventOrigin.names`).
    public var origin: String?
    /// The fault rule's id (events caused by that rule).
    public var ruleID: String?
    /// Only events with a sequence number greater than this.
    public var after: UInt64?
    /// Only events at or after this time, milliseconds since the Unix epoch.
    public var since: Int64?
    /// Only events before this time, milliseconds since the Unix epoch.
    public var until: Int64?

    /// Creates a filter.
    public init(
        listener: String? = nil, environment: APNsEnvironment? = nil, connectionID: UInt64? = nil,
        kinds: Set<ConnectionEventKind>? = nil, origin: String? = nil, ruleID: String? = nil,
        after: UInt64? = nil, since: Int64? = nil, until: Int64? = nil
    ) {
        self.listener = listener
        self.environment = environment
        self.connectionID = connectionID
        self.kinds = kinds
        self.origin = origin
        self.ruleID = ruleID
        self.after = after
        self.since = since
        self.until = until
    }

    /// The query parameter names the filter reads, in documentation order.
    public static let queryParameterNames = [
        "listener", "environment", "connectionId", "kind", "origin", "ruleId", "after", "since", "until",
    ]

    /// Parses the filter parameters from `query` (other names are ignored: the router rejects
    /// unknown ones). `since` and `until` take an ISO 8601 time (`2026-11-30T08:49:03.123Z`,
    /// any offset) or an integer of milliseconds since the epoch. Throws a 400 `ControlError`
    /// naming the parameter for an empty value, an unknown `environment`, `kind` or `origin`,
    /// a `connectionId` or `after` that is not a non-negative integer, a malformed time, or
    /// `until` not after `since`.
    public init(query: [String: String]) throws(ControlError) {
        func text(_ name: String) throws(ControlError) -> String? {
            guard let value = query[name] else { return nil }
            if value.isEmpty { throw .badRequest("\(name) must not be empty") }
            return value
        }
        func unsigned(_ name: String, _ what: String) throws(ControlError) -> UInt64? {
            guard let value = try text(name) else { return nil }
            guard value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = UInt64(value) else {
                throw .badRequest("\(name) must be a non-negative integer (\(what)), got '\(value)'")
            }
            return number
        }
        func instant(_ name: String) throws(ControlError) -> Int64? {
            guard let value = try text(name) else { return nil }
            if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let ms = Int64(value) { return ms }
            guard let ms = ISO8601Timestamp.parse(value) else {
                throw .badRequest(
                    "\(name) must be an ISO 8601 time such as 2026-11-30T08:49:03.123Z "
                        + "or an integer of milliseconds since the epoch, got '\(value)'")
            }
            return ms
        }
        self.init()
        listener = try text("listener")
        if let value = try text("environment") {
            guard let environment = APNsEnvironment(rawValue: value.lowercased()) else {
                throw .badRequest("environment must be sandbox or production")
            }
            self.environment = environment
        }
        connectionID = try unsigned("connectionId", "a connection id")
        if let value = try text("kind") {
            var kinds = Set<ConnectionEventKind>()
            for name in value.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = ConnectionEventKind(rawValue: String(name)) else {
                    let near =
                        ClosestMatch.find(String(name), among: ConnectionEventKind.names)
                        .map { " (did you mean '\($0)'?)" } ?? ""
                    throw .badRequest(
                        "kind: unknown kind '\(name)'\(near); expected one or more, comma-separated, of: "
                            + ConnectionEventKind.names.joined(separator: ", "))
                }
                kinds.insert(kind)
            }
            self.kinds = kinds
        }
        if let value = try text("origin") {
            guard ConnectionEventOrigin.names.contains(value) else {
                let near =
                    ClosestMatch.find(value, among: ConnectionEventOrigin.names).map { " (did you mean '\($0)'?)" }
                    ?? ""
                throw .badRequest(
                    "origin: unknown origin '\(value)'\(near); expected one of: "
                        + ConnectionEventOrigin.names.joined(separator: ", "))
            }
            origin = value
        }
        ruleID = try text("ruleId")
        after = try unsigned("after", "a seq")
        since = try instant("since")
        until = try instant("until")
        if let since, let until, until <= since {
            throw .badRequest("until must be later than since")
        }
    }

    /// Whether `event` passes every set field.
    public func matches(_ event: ConnectionEvent) -> Bool {
        if let after, event.seq <= after { return false }
        if let kinds, !kinds.contains(event.kind) { return false }
        if let connectionID, event.connectionID != connectionID { return false }
        // Bytes, as the deliveries filters: `!=` would match canonically equivalent text.
        if let listener, !UTF8Bytes.equal(event.listener, listener) { return false }
        if let environment, event.environment != environment { return false }
        if let origin, event.origin.name != origin { return false }
        if let ruleID, !UTF8Bytes.equal(event.origin.ruleID, ruleID) { return false }
        if since != nil || until != nil {
            let ms = event.epochMilliseconds
            if let since, ms < since { return false }
            if let until, ms >= until { return false }
        }
        return true
    }
}
