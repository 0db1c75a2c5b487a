import APNsCore
import JSONInput
import Recording

/// The body of `POST /v1/verify` (docs/testing.md): the fields of a deliveries filter, payload
/// paths, a count and a time.
///
/// ```json
/// {"token": "a1b2...", "topic": "com.example.app", "status": 200,
///  "payload": {"aps.alert.title": "Hi", "aps.badge": 3},
///  "exactly": 1, "withinMs": 2000}
/// ```
///
/// Match fields (all optional, all must hold): `token`, `topic`, `pushType`, `status` (100-599),
/// `reason` (an APNs reason, any letter case), `apnsId`, `collapseId`, `environment` (sandbox or
/// production), `kind` (push, channel or broadcast), `channelId`, `after` (only records with a greater seq), `payload` (an object of dotted paths
/// to the JSON value each must hold). Count: at most one of `exactly`, `atLeast`, `atMost`
/// (integers from 0) or `never: true`; none means at least 1. `withinMs` (0 to 300000): how
/// long to wait for the count (for `atMost` and `never`, how long to watch); absent or 0, the
/// store is looked at once. Other keys are refused, with a "did you mean".
struct VerifyBody: Decodable, Equatable {
    var match: DeliveryMatch
    var count: ExpectedCount
    /// Milliseconds to wait or watch; 0 looks once.
    var withinMilliseconds: Int

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"topic": "com.example.app", "payload": {"aps.badge": 3}, "exactly": 1}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, pushType, status, reason, apnsId, collapseId, environment, kind, channelId, after, payload
        case exactly, atLeast, atMost, never, withinMs
    }

    init(match: DeliveryMatch, count: ExpectedCount = .atLeast(1), withinMilliseconds: Int = 0) {
        self.match = match
        self.count = count
        self.withinMilliseconds = withinMilliseconds
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? {
            guard let value = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            if value.isEmpty { throw InputError(at: container.codingPath + [key], "must not be empty") }
            return value
        }
        var reason: Reason?
        if let name = try text(.reason) {
            guard let found = Reason.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                let names = Reason.allCases.map(\.rawValue)
                throw InputError(
                    at: container.codingPath + [CodingKeys.reason],
                    "expected an APNs reason, got \(InputError.quoted(name))"
                        + ClosestMatch.hint(name, among: names, quote: { "\"\($0)\"" }))
            }
            reason = found
        }
        var environment: APNsEnvironment?
        if let name = try text(.environment) {
            guard let found = APNsEnvironment(rawValue: name.lowercased()) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.environment],
                    "expected sandbox or production, got \(InputError.quoted(name))")
            }
            environment = found
        }
        var kind: RequestKind?
        if let name = try text(.kind) {
            guard let found = RequestKind(rawValue: name) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.kind],
                    "expected one of \(RequestKind.allCases.map(\.rawValue).joined(separator: ", ")), got \(InputError.quoted(name))"
                )
            }
            kind = found
        }
        var conditions: [DeliveryMatch.PayloadCondition] = []
        if let paths = try container.decodeIfPresent([String: JSONNode].self, forKey: .payload) {
            for (path, value) in paths.sorted(by: { $0.key < $1.key }) {
                if path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains("") {
                    throw InputError(
                        at: container.codingPath + [CodingKeys.payload],
                        "the path \(InputError.quoted(path)) has an empty segment; write keys separated by dots, like \"aps.alert.title\""
                    )
                }
                conditions.append(DeliveryMatch.PayloadCondition(path: path, value: value))
            }
        }
        match = DeliveryMatch(
            token: try text(.token), topic: try text(.topic), pushType: try text(.pushType),
            status: try container.decodeIfPresent(Int.self, forKey: .status, in: 100...599), reason: reason,
            apnsID: try text(.apnsId), collapseID: try text(.collapseId), environment: environment, kind: kind,
            channelID: try text(.channelId), payload: conditions,
            after: try container.decodeIfPresent(UInt64.self, forKey: .after))
        var counts: [(CodingKeys, ExpectedCount)] = []
        if let value = try container.decodeIfPresent(Int.self, forKey: .exactly, in: 0...Int.max) {
            counts.append((.exactly, .exactly(value)))
        }
        if let value = try container.decodeIfPresent(Int.self, forKey: .atLeast, in: 0...Int.max) {
            counts.append((.atLeast, .atLeast(value)))
        }
        if let value = try container.decodeIfPresent(Int.self, forKey: .atMost, in: 0...Int.max) {
            counts.append((.atMost, .atMost(value)))
        }
        if let never = try container.decodeIfPresent(Bool.self, forKey: .never) {
            guard never else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.never], "only true is meaningful; leave it out otherwise")
            }
            counts.append((.never, .atMost(0)))
        }
        if counts.count > 1 {
            throw InputError(
                at: container.codingPath + [counts[1].0],
                "give one count: \(counts.map { $0.0.rawValue }.joined(separator: " and ")) were both given")
        }
        count = counts.first?.1 ?? .atLeast(1)
        withinMilliseconds =
            try container.decodeIfPresent(Int.self, forKey: .withinMs, in: 0...ControlAPI.maxWaitMilliseconds) ?? 0
    }
}
