import Foundation
import HTTPFields

/// Totals for a run of many requests: counts by status, reason, reset code and failure,
/// timing and latency percentiles.
public struct SendSummary: Sendable, Equatable {
    /// Requests in the run.
    public var total = 0
    /// Responses by `:status`.
    public var statuses: [Int: Int] = [:]
    /// Error responses by APNs `reason`.
    public var reasons: [String: Int] = [:]
    /// RST_STREAM received, by code.
    public var resets: [HTTP2ErrorCode: Int] = [:]
    /// Requests without an answer, by why.
    public var failures: [String: Int] = [:]
    /// Milliseconds from the first request sent to the last answer.
    public var elapsed: Double
    /// Latencies in milliseconds of the requests that got a response, sorted ascending.
    public var latencies: [Double] = []

    /// Tallies `results`, which took `elapsed` milliseconds.
    public init(results: [HTTP2ClientResult], elapsed: Double) {
        self.elapsed = elapsed
        total = results.count
        for result in results {
            switch result.outcome {
            case .response(let response):
                statuses[response.status, default: 0] += 1
                if response.status != 200, let error = APNsErrorBody(body: response.body) {
                    reasons[error.reason, default: 0] += 1
                }
                if let latency = result.latency { latencies.append(latency) }
            case .streamReset(let code):
                resets[code, default: 0] += 1
            case .failed(let error):
                failures[SendReport.failureText(error), default: 0] += 1
            }
        }
        latencies.sort()
    }

    /// Requests per second over the whole run (all requests / elapsed).
    public var requestsPerSecond: Double { elapsed > 0 ? Double(total) / (elapsed / 1000) : 0 }

    /// The `percent` percentile latency in milliseconds (nearest rank), nil without responses.
    public func latency(percentile percent: Double) -> Double? {
        guard !latencies.isEmpty else { return nil }
        let rank = Int((percent / 100 * Double(latencies.count)).rounded(.up))
        return latencies[min(latencies.count, max(1, rank)) - 1]
    }

    /// The summary as lines; `connection` describes where the requests went (first line).
    public func lines(connection: String, goAway: HTTP2GoAway?) -> [String] {
        var lines = ["sent \(total) requests to \(connection)"]
        for status in statuses.keys.sorted() { lines.append("status \(status): \(statuses[status]!)") }
        for (reason, count) in Self.byCount(reasons) { lines.append("reason \(reason): \(count)") }
        for code in resets.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            lines.append("stream reset \(code.hexDescription): \(resets[code]!)")
        }
        for (why, count) in Self.byCount(failures) { lines.append("no response (\(why)): \(count)") }
        if let goAway { lines.append(SendReport.goAwayLine(goAway)) }
        lines.append("elapsed \(Self.format(elapsed, 1)) ms, \(Self.format(requestsPerSecond, 1)) requests/s")
        if let p50 = latency(percentile: 50), let p99 = latency(percentile: 99) {
            lines.append("latency p50 \(Self.format(p50, 2)) ms, p99 \(Self.format(p99, 2)) ms")
        }
        return lines
    }

    /// Most frequent first, then by name.
    private static func byCount(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    static func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
