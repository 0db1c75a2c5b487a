import XCTest

@testable import ControlAPI

final class MetricsExpositionTests: XCTestCase {
    func testNumbers() {
        let rows: [(Double, String)] = [
            (0, "0"), (3, "3"), (-2, "-2"), (0.25, "0.25"), (0.0001, "0.0001"), (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"), (.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN"), (12_345_678, "12345678"),
        ]
        for (value, text) in rows { XCTAssertEqual(MetricsExposition.number(value), text, "\(value)") }
    }

    func testEscaping() {
        let labels: [(String, String)] = [
            ("plain", "plain"), (#"a"b"#, #"a\"b"#), (#"a\b"#, #"a\\b"#), ("a\nb", #"a\nb"#), ("é", "é"),
        ]
        for (value, escaped) in labels { XCTAssertEqual(MetricsExposition.escapeLabelValue(value), escaped) }
        let helps: [(String, String)] = [(#"say "hi""#, #"say "hi""#), (#"a\b"#, #"a\\b"#), ("a\nb", #"a\nb"#)]
        for (help, escaped) in helps { XCTAssertEqual(MetricsExposition.escapeHelp(help), escaped) }
    }

    func testNegotiation() {
        let rows: [(String?, MetricsExposition.Format)] = [
            (nil, .prometheusText),
            ("*/*", .prometheusText),
            ("text/plain", .prometheusText),
            ("application/openmetrics-text", .openMetrics),
            ("application/openmetrics-text; version=1.0.0; charset=utf-8", .openMetrics),
            (
                "application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                .openMetrics
            ),
            ("Application/OpenMetrics-Text", .openMetrics),
            ("text/plain, application/openmetrics-text;q=0", .prometheusText),
        ]
        for (accept, format) in rows {
            XCTAssertEqual(MetricsExposition.Format.negotiated(accept: accept), format, accept ?? "nil")
        }
        XCTAssertEqual(MetricsExposition.Format.prometheusText.contentType, "text/plain; version=0.0.4; charset=utf-8")
        XCTAssertEqual(
            MetricsExposition.Format.openMetrics.contentType,
            "application/openmetrics-text; version=1.0.0; charset=utf-8")
    }

    /// The same families in both formats: `# TYPE` of a counter, `# UNIT`, `# EOF` differ.
    func testFamiliesInBothFormats() {
        func write(_ format: MetricsExposition.Format) -> String {
            var out = MetricsExposition(format: format)
            out.family("x_pushes", kind: .counter, help: "Pushes.")
            out.counter("x_pushes", labels: [("status", "200"), ("reason", "")], value: 7)
            out.family("x_open", kind: .gauge, help: "Open.")
            out.gauge("x_open", value: 2)
            out.family("x_latency_seconds", kind: .histogram, help: "Latency.", unit: "seconds")
            out.histogram("x_latency_seconds", bounds: [0.5, 1], cumulativeCounts: [1, 3, 4], sum: 2.25)
            return String(decoding: out.finished(), as: UTF8.self)
        }
        let samples = """
            x_pushes_total{status="200",reason=""} 7

            """
        let rest = """
            x_open 2
            x_latency_seconds_bucket{le="0.5"} 1
            x_latency_seconds_bucket{le="1"} 3
            x_latency_seconds_bucket{le="+Inf"} 4
            x_latency_seconds_count 4
            x_latency_seconds_sum 2.25

            """
        XCTAssertEqual(
            write(.prometheusText),
            "# HELP x_pushes_total Pushes.\n# TYPE x_pushes_total counter\n" + samples
                + "# HELP x_open Open.\n# TYPE x_open gauge\n"
                + rest.replacingOccurrences(
                    of: "x_latency_seconds_bucket{le=\"0.5\"}",
                    with: "# HELP x_latency_seconds Latency.\n# TYPE x_latency_seconds histogram\n"
                        + "x_latency_seconds_bucket{le=\"0.5\"}"))
        XCTAssertEqual(
            write(.openMetrics),
            "# HELP x_pushes Pushes.\n# TYPE x_pushes counter\n" + samples
                + "# HELP x_open Open.\n# TYPE x_open gauge\n"
                + rest.replacingOccurrences(
                    of: "x_latency_seconds_bucket{le=\"0.5\"}",
                    with: "# HELP x_latency_seconds Latency.\n# TYPE x_latency_seconds histogram\n"
                        + "# UNIT x_latency_seconds seconds\nx_latency_seconds_bucket{le=\"0.5\"}") + "# EOF\n")
    }
}
