import APNsCore
import Foundation

/// A drawn delay of a `delay` fault (issue 13, "Latency distributions"): each push the rule
/// takes waits a fresh draw, from a generator seeded with `seed` (SplitMix64), so the same
/// seed gives the same sequence of delays on every run.
///
/// JSON (in a `delay` action, instead of `ms`):
/// - uniform: `{"type": "delay", "minMs": 200, "maxMs": 800, "seed": 7}`: every whole
///   millisecond from `minMs` to `maxMs` (inclusive) equally likely;
/// - log-normal: `{"type": "delay", "medianMs": 300, "spread": 0.5, "seed": 7}`: `medianMs`
///   times e^(`spread` × Z), Z standard normal (Box-Muller), so half the delays are below the
///   median and `spread` is the standard deviation of the delay's natural logarithm (0.5: about
///   one push in six waits over 1.65 × the median); rounded to whole milliseconds and capped at
///   one day.
/// `seed` is optional: absent, the engine picks one and shows it in the rule.
public struct FaultLatency: Sendable, Hashable {
    /// The distribution and its parameters, milliseconds.
    public enum Distribution: Sendable, Hashable {
        case uniform(minMilliseconds: Int64, maxMilliseconds: Int64)
        case logNormal(medianMilliseconds: Int64, spread: Double)
    }

    public var distribution: Distribution
    /// The generator's seed; nil until the engine assigns one (below 2^53, like `FaultMatch.seed`).
    public var seed: UInt64?

    public init(_ distribution: Distribution, seed: UInt64? = nil) {
        self.distribution = distribution
        self.seed = seed
    }

    /// `uniform 200-800 ms` or `log-normal median 300 ms, spread 0.5`, with ` (seed 7)`.
    public var summary: String {
        var text: String
        switch distribution {
        case .uniform(let low, let high): text = "uniform \(low)-\(high) ms"
        case .logNormal(let median, let spread): text = "log-normal median \(median) ms, spread \(spread)"
        }
        if let seed { text += " (seed \(seed))" }
        return text
    }

    /// One delay, milliseconds, within 0 and `FaultLimits.maxMilliseconds`.
    func draw(_ random: inout SplitMix64) -> Int64 {
        switch distribution {
        case .uniform(let low, let high):
            let span = UInt64(high - low) + 1
            return low + Int64(random.next() % span)
        case .logNormal(let median, let spread):
            // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
            let u1 = 1 - random.nextUnit()
            let u2 = random.nextUnit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            let value = (Double(median) * exp(spread * z)).rounded()
            guard value.isFinite else { return FaultLimits.maxMilliseconds }
            return Int64(min(max(value, 0), Double(FaultLimits.maxMilliseconds)))
        }
    }

    static let keys = ["minMs", "maxMs", "medianMs", "spread", "seed"]

    func validate(at path: String) throws(FaultRuleError) {
        func fail(_ key: String, _ message: String) -> FaultRuleError {
            FaultRuleError(field: FaultRuleError.join(path, key), message: message)
        }
        let range = 0...FaultLimits.maxMilliseconds
        switch distribution {
        case .uniform(let low, let high):
            guard range.contains(low) else {
                throw fail("minMs", "must be 0 to \(FaultLimits.maxMilliseconds) milliseconds, got \(low)")
            }
            guard range.contains(high) else {
                throw fail("maxMs", "must be 0 to \(FaultLimits.maxMilliseconds) milliseconds, got \(high)")
            }
            guard low <= high else { throw fail("maxMs", "must be at least minMs (\(low)), got \(high)") }
        case .logNormal(let median, let spread):
            guard (1...FaultLimits.maxMilliseconds).contains(median) else {
                throw fail("medianMs", "must be 1 to \(FaultLimits.maxMilliseconds) milliseconds, got \(median)")
            }
            guard spread.isFinite, spread >= 0, spread <= 10 else {
                throw fail("spread", "must be within 0 and 10, got \(spread)")
            }
        }
    }

    /// Reads the latency fields of a `delay` object whose keys were checked; nil when it has
    /// none (a fixed `ms`). Mixing `ms` with them, or the two distributions, is an error.
    static func read(_ object: FaultObjectReader) throws -> FaultLatency? {
        let uniform = object.has("minMs") || object.has("maxMs")
        let logNormal = object.has("medianMs") || object.has("spread")
        guard uniform || logNormal else {
            if object.has("seed") { throw object.error("seed", "only with minMs/maxMs or medianMs/spread") }
            return nil
        }
        if object.has("ms") { throw object.error("ms", "either ms, minMs/maxMs or medianMs/spread, not two") }
        if uniform && logNormal {
            throw object.error("medianMs", "either minMs/maxMs (uniform) or medianMs/spread (log-normal), not both")
        }
        let seed = try object.optional("seed", UInt64.self, expected: "an integer from 0 to 18446744073709551615")
        let latency: FaultLatency
        if uniform {
            latency = FaultLatency(
                .uniform(
                    minMilliseconds: try object.required("minMs", Int64.self, expected: "an integer of milliseconds"),
                    maxMilliseconds: try object.required("maxMs", Int64.self, expected: "an integer of milliseconds")),
                seed: seed)
        } else {
            latency = FaultLatency(
                .logNormal(
                    medianMilliseconds: try object.required(
                        "medianMs", Int64.self, expected: "an integer of milliseconds"),
                    spread: try object.required("spread", Double.self, expected: "a number within 0 and 10")),
                seed: seed)
        }
        try object.validated { () throws(FaultRuleError) in try latency.validate(at: object.path) }
        return latency
    }

    /// Writes the latency fields into a `delay` object.
    func write(into container: inout KeyedEncodingContainer<FaultCodingKey>) throws {
        switch distribution {
        case .uniform(let low, let high):
            try container.encode(low, forKey: FaultCodingKey("minMs"))
            try container.encode(high, forKey: FaultCodingKey("maxMs"))
        case .logNormal(let median, let spread):
            try container.encode(median, forKey: FaultCodingKey("medianMs"))
            try container.encode(spread, forKey: FaultCodingKey("spread"))
        }
        try container.encodeIfPresent(seed, forKey: FaultCodingKey("seed"))
    }
}
