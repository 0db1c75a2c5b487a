import APNsCore
import Foundation
import JSONInput
import JSONSupport

/// The `rolling-restart` scenario (issue 13): every connection open when it starts is drained
/// (GOAWAY NO_ERROR `{"reason":"Shutdown"}`, the streams in flight answered, then FIN) at a
/// moment of its own within `windowMs` milliseconds, drawn from `seed`; connections opened after
/// it starts are left alone, so a sender's reconnections are served. Unlike the other scenarios
/// it makes no fault rule: it acts on connections, not on pushes, and only from
/// `POST /v1/faults` (a configuration file has no connection to act on).
///
/// JSON: `{"scenario": "rolling-restart", "parameters": {"windowMs": 10000, "drainMs": 5000, "seed": 7}}`.
public struct RollingRestart: Sendable, Hashable {
    /// The milliseconds within which every connection's GOAWAY falls (default 10,000).
    public var windowMilliseconds: Int64
    /// How long a drained connection may keep answering its streams in flight before it is
    /// closed anyway, milliseconds (default 5,000).
    public var drainMilliseconds: Int64
    /// The seed of the moments; picked (below 2^53) when not given, and shown in the answer.
    public var seed: UInt64

    public static let defaultWindowMilliseconds: Int64 = 10_000
    public static let defaultDrainMilliseconds: Int64 = 5_000
    /// The scenario's parameters.
    public static let parameterNames = ["windowMs", "drainMs", "seed"]

    public init(
        windowMilliseconds: Int64 = defaultWindowMilliseconds, drainMilliseconds: Int64 = defaultDrainMilliseconds,
        seed: UInt64
    ) {
        self.windowMilliseconds = windowMilliseconds
        self.drainMilliseconds = drainMilliseconds
        self.seed = seed
    }

    /// Milliseconds from the start to the GOAWAY of the connection of rank `ordinal` (its id,
    /// counted from 1 in order of acceptance), from 0 to `windowMs`: one SplitMix64 output of a
    /// state made from the seed and the rank, so the same seed gives the same moment to the
    /// same connection number on every run, whatever the other connections.
    public func delayMilliseconds(forConnection ordinal: UInt64) -> Int64 {
        var random = SplitMix64(seed: (seed ^ 0x2545_F491_4F6C_DD1D) &+ ordinal &* 0x9E37_79B9_7F4A_7C15)
        return Int64((random.nextUnit() * Double(windowMilliseconds + 1)).rounded(.down))
    }

    /// The scenario of `parameters` (JSON values as the control API decodes them).
    /// - Throws: `FaultRuleError` with field `parameters.<name>` for a bad or unknown parameter.
    public init(parameters: [String: JSONNode]) throws(FaultRuleError) {
        for key in parameters.keys.sorted() where !Self.parameterNames.contains(key) {
            throw FaultRuleError(
                field: "parameters.\(key)",
                message: "unknown parameter of rolling-restart; valid: \(Self.parameterNames.joined(separator: ", "))")
        }
        func integer(_ key: String, in range: ClosedRange<Int64>) throws(FaultRuleError) -> Int64? {
            guard let value = parameters[key], value != .null else { return nil }
            let number: Int64? =
                switch value {
                case .int(let n): n
                case .uint(let n): Int64(exactly: n)
                case .double(let d): Int64(exactly: d)
                default: nil
                }
            guard let number, range.contains(number) else {
                throw FaultRuleError(
                    field: "parameters.\(key)",
                    message:
                        "expected an integer from \(range.lowerBound) to \(range.upperBound), got \(FaultRuleError.render(value))"
                )
            }
            return number
        }
        /// Any unsigned 64-bit integer, as every seed (`UInt64(seedNode:)`).
        func seed() throws(FaultRuleError) -> UInt64? {
            guard let value = parameters["seed"], value != .null else { return nil }
            guard let seed = UInt64(seedNode: value) else {
                throw FaultRuleError(
                    field: "parameters.seed",
                    message: "expected \(UInt64.seedExpectation), got \(FaultRuleError.render(value))")
            }
            return seed
        }
        self.init(
            windowMilliseconds: try integer("windowMs", in: 0...FaultLimits.maxMilliseconds)
                ?? Self.defaultWindowMilliseconds,
            // From 1, as the drain command's maxMs: a drain of 0 ms would be a plain GOAWAY and close.
            drainMilliseconds: try integer("drainMs", in: 1...FaultLimits.maxMilliseconds)
                ?? Self.defaultDrainMilliseconds,
            seed: try seed() ?? UInt64.random(in: 0..<(1 << 53)))
    }
}
