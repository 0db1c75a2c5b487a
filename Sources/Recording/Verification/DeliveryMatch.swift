import APNsCore
import Foundation
import JSONInput

/// What a verification (`POST /v1/verify`, docs/testing.md) looks for in the delivery records:
/// the fields of `DeliveryFilter` (every one set must match) plus values at payload paths; and,
/// for a record that does not match, how it differs (`differences(_:)`, WireMock's near misses).
public struct DeliveryMatch: Sendable, Equatable {
    /// The record fields that must match and the scope, as the deliveries list reads them
    /// (`DeliveryFilter`: `token`, `topic`, `pushType`, `status`, `reason`, `apnsID`,
    /// `collapseID`, `environment`, `kind`, `channelID`; `after` keeps only later records, for
    /// matches and near misses alike). Its `unanswered` is not used by a verification.
    public var filter: DeliveryFilter
    /// Values the payload must hold, each at a path.
    public var payload: [PayloadCondition]

    /// A payload path and the value it must hold: `aps.alert.title` = `"Hi"`. The path's
    /// segments are object keys separated by dots; a segment that is a non-negative integer
    /// indexes an array. Numbers compare by value (3 equals 3.0); objects and arrays compare whole.
    public struct PayloadCondition: Sendable, Equatable {
        /// The dotted path, e.g. `aps.alert.title` or `items.0.id`.
        public var path: String
        /// The value wanted there.
        public var value: JSONNode

        public init(path: String, value: JSONNode) {
            self.path = path
            self.value = value
        }

        /// The value at this path in `payload`, nil when there is none.
        func lookUp(in payload: JSONNode) -> JSONNode? {
            var node = payload
            for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
                switch node {
                case .object(let members):
                    guard let next = members[String(segment)] else { return nil }
                    node = next
                case .array(let items):
                    guard let index = Int(segment), items.indices.contains(index) else { return nil }
                    node = items[index]
                default:
                    return nil
                }
            }
            return node
        }
    }

    /// A match of `filter`'s record fields and `payload`.
    public init(filter: DeliveryFilter = DeliveryFilter(), payload: [PayloadCondition] = []) {
        self.filter = filter
        self.payload = payload
    }

    /// A match of these fields (`DeliveryFilter`'s; `token` and `apnsID` lowercased) and `payload`.
    public init(
        token: String? = nil, topic: String? = nil, pushType: String? = nil, status: Int? = nil,
        reason: Reason? = nil, apnsID: String? = nil, collapseID: String? = nil,
        environment: APNsEnvironment? = nil, kind: RequestKind? = nil, channelID: String? = nil,
        payload: [PayloadCondition] = [], after: UInt64? = nil
    ) {
        var filter = DeliveryFilter(
            token: token, topic: topic, pushType: pushType, status: status, reason: reason, apnsID: apnsID,
            collapseID: collapseID, environment: environment, after: after)
        filter.kind = kind
        filter.channelID = channelID
        self.init(filter: filter, payload: payload)
    }

    /// Whether `record` is one the verification counts.
    public func matches(_ record: DeliveryRecord) -> Bool { differences(record).isEmpty }

    /// How `record` differs from the match, one entry per field asked for that it does not
    /// hold, in the order of the fields above; empty when it matches. (`after` is a scope, not
    /// a field: a record before it is not looked at.)
    public func differences(_ record: DeliveryRecord) -> [MatchDifference] {
        var found: [MatchDifference] = []
        func compare(_ field: String, _ expected: String?, _ actual: String?, same: (String, String) -> Bool = (==)) {
            guard let expected else { return }
            if let actual, same(expected, actual) { return }
            found.append(MatchDifference(field: field, expected: Self.text(expected), actual: actual.map(Self.text)))
        }
        let verdict = record.verdict
        compare("token", filter.token, verdict.deviceToken)
        compare("topic", filter.topic, verdict.topic)
        if let pushType = filter.pushType, verdict.pushTypeSent != pushType, verdict.pushType?.rawValue != pushType {
            let actual = verdict.pushTypeSent ?? verdict.pushType?.rawValue
            found.append(
                MatchDifference(field: "pushType", expected: Self.text(pushType), actual: actual.map(Self.text)))
        }
        if let status = filter.status, record.status != status {
            // 0: the stream got no answer (`unanswered`), or its answer is still held.
            found.append(
                MatchDifference(
                    field: "status", expected: String(status), actual: record.status == 0 ? nil : String(record.status))
            )
        }
        compare("reason", filter.reason?.rawValue, record.reason?.rawValue)
        compare("apnsId", filter.apnsID, record.apnsID) { $0 == $1.lowercased() }
        compare("collapseId", filter.collapseID, verdict.collapseID)
        compare("environment", filter.environment?.rawValue, record.environment.rawValue)
        compare("kind", filter.kind?.rawValue, record.kind.rawValue)
        if let channelID = filter.channelID,
            !DeliveryFilter.namesChannel(
                record.channelID, seq: record.seq, channelID, createSeq: filter.channelCreateSeq)
        {
            found.append(
                MatchDifference(
                    field: "channelId", expected: Self.text(channelID), actual: record.channelID.map(Self.text)))
        }
        if !payload.isEmpty {
            let body = try? JSONNode(decoding: record.payload)
            for condition in payload {
                let actual = body.flatMap { condition.lookUp(in: $0) }
                if let actual, Self.same(actual, condition.value) { continue }
                found.append(
                    MatchDifference(
                        field: "payload.\(condition.path)", expected: Self.text(condition.value),
                        actual: actual.map(Self.text)))
            }
        }
        return found
    }

    /// The records of `records` that come closest to matching without matching, at most
    /// `limit`, ranked (docs/testing.md "The answer"):
    /// 1. fewest differing fields;
    /// 2. the smallest summed distance of those fields (`MatchDifference.distance`: 0 close to
    ///    1 far; a missing value is 1, so a rejected push that `got nothing` ranks after one whose
    ///    string differs by a word);
    /// 3. answered 200 before the rest;
    /// 4. the newest first.
    public func nearMisses(_ records: [DeliveryRecord], limit: Int = 3) -> [(DeliveryRecord, [MatchDifference])] {
        var misses: [(record: DeliveryRecord, differences: [MatchDifference], distance: Double)] = []
        for record in records {
            if let after = filter.after, record.seq <= after { continue }
            let differences = differences(record)
            if !differences.isEmpty {
                misses.append((record, differences, differences.reduce(0) { $0 + $1.distance }))
            }
        }
        misses.sort { a, b in
            if a.differences.count != b.differences.count { return a.differences.count < b.differences.count }
            if a.distance != b.distance { return a.distance < b.distance }
            if (a.record.status == 200) != (b.record.status == 200) { return a.record.status == 200 }
            return a.record.seq > b.record.seq
        }
        return misses.prefix(max(limit, 0)).map { ($0.record, $0.differences) }
    }

    /// For messages: `token="ab12…", topic="com.example.app", payload.aps.badge=3`, or `any push`.
    public var description: String {
        var parts: [String] = []
        func add(_ name: String, _ value: String?) { if let value { parts.append("\(name)=\(Self.text(value))") } }
        add("token", filter.token)
        add("topic", filter.topic)
        add("pushType", filter.pushType)
        if let status = filter.status { parts.append("status=\(status)") }
        add("reason", filter.reason?.rawValue)
        add("apnsId", filter.apnsID)
        add("collapseId", filter.collapseID)
        add("environment", filter.environment?.rawValue)
        add("kind", filter.kind?.rawValue)
        add("channelId", filter.channelID)
        for condition in payload { parts.append("payload.\(condition.path)=\(Self.text(condition.value))") }
        if let after = filter.after { parts.append("after seq \(after)") }
        return parts.isEmpty ? "any push" : parts.joined(separator: ", ")
    }

    /// Equal JSON values, numbers by value.
    static func same(_ a: JSONNode, _ b: JSONNode) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default:
            if let x = number(a), let y = number(b) { return x == y }
            return a == b
        }
    }

    private static func number(_ node: JSONNode) -> Double? {
        switch node {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as JSON text.
    static func text(_ value: JSONNode) -> String {
        (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? value.rendered
    }

    /// `value` as a JSON string literal.
    static func text(_ value: String) -> String { text(JSONNode.string(value)) }
}
