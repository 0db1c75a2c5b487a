import APNsCore
import Foundation
import JSONInput
import JSONSupport

/// Named presets that produce fault rules for common APNs conditions (issue "Fault
/// injection"; docs/field-cases.md C1, C7, C9; docs/apns-behaviour.md §9 TooManyRequests).
///
/// | name | parameters | rules |
/// |---|---|---|
/// | `apns-outage` | `durationMs`? | 503 ServiceUnavailable to every push; until now + `durationMs` milliseconds when given |
/// | `flaky` | `percent`? (default 10), `seed`? | 500 InternalServerError to `percent`% of pushes, drawn reproducibly from `seed` |
/// | `token-expiry` | | 403 ExpiredProviderToken to every push carrying an `authorization` header |
/// | `graceful-restart` | `windowMs`? (default 1000) | GOAWAY NO_ERROR `{"reason":"Shutdown"}` on the next push of each connection, once per connection, for `windowMs` milliseconds (see below) |
/// | `throttled` | `perSecond`, `burst`? | 429 TooManyRequests above `perSecond` pushes per device token |
/// | `rolling-restart` | `windowMs`?, `drainMs`?, `seed`? | no rule: every connection open now is drained at a seeded moment within `windowMs` (`RollingRestart`); `POST /v1/faults` only |
///
/// `graceful-restart` strikes before the response, so that push is left above the last-stream-id
/// and a correct sender retries it on a new connection. Connections opened during the restart
/// get a GOAWAY too, on their first push; the restart ends `windowMs` milliseconds from now
/// (default 1000: without an end, a sender that reconnects would be turned away for good).
/// Connections that push nothing during the window are left alone; `POST
/// /v1/connections/{id}/goaway` reaches an idle one.
public enum FaultScenario: String, Sendable, CaseIterable {
    case apnsOutage = "apns-outage"
    case flaky
    case tokenExpiry = "token-expiry"
    case gracefulRestart = "graceful-restart"
    case throttled
    case rollingRestart = "rolling-restart"

    /// How long a `graceful-restart` lasts when its `windowMs` is not given, milliseconds.
    public static let defaultRestartWindowMilliseconds: Int64 = 1000

    /// The parameters the scenario takes.
    public var parameterNames: [String] {
        switch self {
        case .apnsOutage: return ["durationMs"]
        case .flaky: return ["percent", "seed"]
        case .tokenExpiry: return []
        case .gracefulRestart: return ["windowMs"]
        case .throttled: return ["perSecond", "burst"]
        case .rollingRestart: return RollingRestart.parameterNames
        }
    }

    /// The rules of scenario `name`.
    /// - Parameters:
    ///   - parameters: the scenario's parameters (JSON values, as the control API decodes them).
    ///   - nowMilliseconds: now, milliseconds since the Unix epoch, for durations and windows.
    /// - Throws: `FaultRuleError` with field `scenario` for an unknown name, or
    ///   `parameters.<name>` for a bad or unknown parameter.
    public static func rules(
        named name: String, parameters: [String: JSONNode] = [:],
        nowMilliseconds: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws(FaultRuleError) -> [FaultRule] {
        guard let scenario = FaultScenario(rawValue: name) else {
            let names = allCases.map(\.rawValue)
            let near = ClosestMatch.hint(name, among: names)
            throw FaultRuleError(
                field: "scenario",
                message:
                    "unknown scenario \(InputError.quoted(name))\(near); expected one of \(names.joined(separator: ", "))"
            )
        }
        return try scenario.rules(parameters: parameters, nowMilliseconds: nowMilliseconds)
    }

    /// This scenario's rules; see `rules(named:parameters:nowMilliseconds:)`.
    public func rules(parameters: [String: JSONNode] = [:], nowMilliseconds: Int64) throws(FaultRuleError)
        -> [FaultRule]
    {
        for key in parameters.keys.sorted() where !parameterNames.contains(key) {
            let valid = parameterNames.isEmpty ? "it takes none" : "valid: \(parameterNames.joined(separator: ", "))"
            throw FaultRuleError(field: "parameters.\(key)", message: "unknown parameter of \(rawValue); \(valid)")
        }
        let read = Parameters(values: parameters)
        let label = "scenario \(rawValue)"
        switch self {
        case .apnsOutage:
            let duration = try read.integer("durationMs", in: 1...Int64(365) * 86_400_000)
            return [
                FaultRule(
                    lifetime: duration.map { .until(ISO8601Timestamp(clamping: nowMilliseconds + $0)) }
                        ?? .unlimited,
                    action: .respond(FaultResponse(reason: .serviceUnavailable)), description: label)
            ]
        case .flaky:
            let percent = try read.number("percent", in: 0...100) ?? 10
            let seed = try read.seed()
            return [
                FaultRule(
                    match: FaultMatch(probability: percent / 100, seed: seed),
                    action: .respond(FaultResponse(reason: .internalServerError)), description: label)
            ]
        case .tokenExpiry:
            return [
                FaultRule(
                    match: FaultMatch(headers: ["authorization": .present]),
                    action: .respond(FaultResponse(reason: .expiredProviderToken)), description: label)
            ]
        case .gracefulRestart:
            let window =
                try read.integer("windowMs", in: 1...FaultLimits.maxMilliseconds)
                ?? Self.defaultRestartWindowMilliseconds
            return [
                FaultRule(
                    match: FaultMatch(until: ISO8601Timestamp(clamping: nowMilliseconds + window)),
                    lifetime: .timesPerConnection(1),
                    action: .goaway(GoawayFault(errorCode: .noError, reason: Reason.shutdown.rawValue)),
                    description: label)
            ]
        case .throttled:
            guard let perSecond = try read.number("perSecond", in: 0...FaultLimits.maxPerSecond), perSecond > 0 else {
                throw FaultRuleError(
                    field: "parameters.perSecond",
                    message: "required: a number of pushes per second per device token, above 0")
            }
            let burst = try read.integer("burst", in: 1...Int64(Int32.max)).map { Int($0) }
            return [
                FaultRule(action: .rateLimit(FaultRateLimit(perSecond: perSecond, burst: burst)), description: label)
            ]
        case .rollingRestart:
            throw FaultRuleError(
                field: "scenario",
                message:
                    "rolling-restart makes no rule: it drains the connections open when it starts, so only "
                    + "POST /v1/faults starts it, on a running server: "
                    + "{\"scenario\": \"rolling-restart\", \"parameters\": {...}}")
        }
    }

    /// Typed reads of scenario parameters, with errors naming `parameters.<key>`.
    private struct Parameters {
        let values: [String: JSONNode]

        func integer(_ key: String, in range: ClosedRange<Int64>) throws(FaultRuleError) -> Int64? {
            try read(key, in: range, expected: "expected an integer from \(range.lowerBound) to \(range.upperBound)") {
                switch $0 {
                case .int(let n): n
                case .uint(let n): Int64(exactly: n)
                case .double(let d): Int64(exactly: d)
                default: nil
                }
            }
        }

        /// `seed`: any unsigned 64-bit integer, as every seed (`UInt64(seedNode:)`).
        func seed() throws(FaultRuleError) -> UInt64? {
            try read("seed", in: 0...UInt64.max, expected: "expected \(UInt64.seedExpectation)") {
                UInt64(seedNode: $0)
            }
        }

        func number(_ key: String, in range: ClosedRange<Double>) throws(FaultRuleError) -> Double? {
            try read(
                key, in: range,
                expected: "must be within \(Self.plain(range.lowerBound)) and \(Self.plain(range.upperBound))"
            ) {
                switch $0 {
                case .int(let n): Double(n)
                case .uint(let n): Double(n)
                case .double(let d): d
                default: nil
                }
            }
        }

        /// The value of `key` as `convert` reads it; nil when absent or `null`; fails with
        /// `expected` when it cannot be read or is outside `range`.
        private func read<T>(
            _ key: String, in range: ClosedRange<T>, expected: String,
            _ convert: (JSONNode) -> T?
        ) throws(FaultRuleError) -> T? {
            guard let value = values[key], value != .null else { return nil }
            guard let converted = convert(value), range.contains(converted) else {
                throw FaultRuleError(
                    field: "parameters.\(key)", message: "\(expected), got \(FaultRuleError.render(value))")
            }
            return converted
        }

        private static func plain(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }
}
