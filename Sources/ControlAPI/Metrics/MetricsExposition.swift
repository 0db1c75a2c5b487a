/// A writer of metrics in the Prometheus text exposition format (version 0.0.4) or in
/// OpenMetrics 1.0 (`GET /metrics`; README "Metrics"): families of counters, gauges and
/// histograms, each a `# HELP` and `# TYPE` line (OpenMetrics: and `# UNIT` when given) and its
/// samples. Pure formatting: it neither collects nor checks that a family's samples come together.
///
/// The two formats differ where a writer sees it: a counter family is named `x_total` in the
/// text format's `# TYPE` line and `x` in OpenMetrics' (its samples are `x_total` in both), and
/// OpenMetrics ends with `# EOF`. Label values are escaped (`\\`, `"`, newline), help text too
/// (`\\`, newline); numbers are integers as integers, other values in the shortest form that
/// reads back the same, `+Inf`, `-Inf` and `NaN`.
public struct MetricsExposition: Sendable {
    /// Which of the two formats is written.
    public enum Format: Sendable, Equatable {
        /// The Prometheus text format, version 0.0.4.
        case prometheusText
        /// OpenMetrics 1.0.0.
        case openMetrics

        /// The `content-type` of an answer in this format.
        public var contentType: String {
            switch self {
            case .prometheusText: "text/plain; version=0.0.4; charset=utf-8"
            case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
            }
        }

        /// The format an `accept` header asks for: OpenMetrics when it names
        /// `application/openmetrics-text` (with a nonzero `q`, if any), the text format otherwise
        /// (also with no header), as Prometheus servers negotiate.
        public static func negotiated(accept: String?) -> Format {
            guard let accept else { return .prometheusText }
            for range in accept.split(separator: ",") {
                let parts = range.split(separator: ";").map { $0.trimmingSpaces.lowercased() }
                guard parts.first == "application/openmetrics-text" else { continue }
                let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
                if q ?? 1 > 0 { return .openMetrics }
            }
            return .prometheusText
        }
    }

    /// A family's type.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The format written.
    public let format: Format
    /// What has been written so far.
    public private(set) var text = ""

    /// An empty exposition in `format`.
    public init(format: Format) {
        self.format = format
    }

    /// Starts a family: its `# HELP` and `# TYPE` lines and, in OpenMetrics, `# UNIT` when
    /// `unit` is given (the name must then end with `_` and the unit, e.g. `_seconds`).
    /// - Parameter name: the family's name, for a counter without `_total`.
    public mutating func family(_ name: String, kind: Kind, help: String, unit: String? = nil) {
        let typeName = kind == .counter && format == .prometheusText ? name + "_total" : name
        text += "# HELP \(typeName) \(Self.escapeHelp(help))\n"
        text += "# TYPE \(typeName) \(kind.rawValue)\n"
        if let unit, format == .openMetrics { text += "# UNIT \(typeName) \(unit)\n" }
    }

    /// One sample line: `name{labels} value`; labels in the order given, none writes no braces.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabelValue($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A counter's sample, `name_total` (the family started with `name`).
    public mutating func counter(_ name: String, labels: [(String, String)] = [], value: UInt64) {
        sample(name + "_total", labels: labels, value: Double(value))
    }

    /// A gauge's sample.
    public mutating func gauge(_ name: String, labels: [(String, String)] = [], value: Double) {
        sample(name, labels: labels, value: value)
    }

    /// A histogram's samples: `name_bucket` for each bound and `+Inf`, then `name_count` and
    /// `name_sum`.
    /// - Parameters:
    ///   - bounds: the buckets' upper bounds, ascending, without `+Inf`.
    ///   - cumulativeCounts: observations at or below each bound, then the total: one more than `bounds`.
    public mutating func histogram(
        _ name: String, labels: [(String, String)] = [], bounds: [Double], cumulativeCounts: [UInt64], sum: Double
    ) {
        precondition(cumulativeCounts.count == bounds.count + 1, "one count per bound and one for +Inf")
        for (bound, count) in zip(bounds + [.infinity], cumulativeCounts) {
            sample(name + "_bucket", labels: labels + [("le", Self.number(bound))], value: Double(count))
        }
        sample(name + "_count", labels: labels, value: Double(cumulativeCounts.last!))
        sample(name + "_sum", labels: labels, value: sum)
    }

    /// The exposition as bytes, with OpenMetrics' closing `# EOF`.
    public func finished() -> [UInt8] {
        Array((format == .openMetrics ? text + "# EOF\n" : text).utf8)
    }

    /// `value` as both formats write numbers: `3` for 3, `0.25`, `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A label value with `\`, `"` and newline escaped.
    static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Help text with `\` and newline escaped.
    static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
