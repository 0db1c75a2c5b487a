import APNsCore
import XCTest

/// Shared builders for the validation tables: a baseline request that is accepted with no lints,
/// and a way to vary one thing at a time.
enum ValidationFixture {
    static let token = String(repeating: "a1b2", count: 16)  // 64 hex characters
    static let topic = "com.example.app"
    static let now: Int64 = 1_700_000_000_123
    static let alertBody = #"{"aps":{"alert":"hello"}}"#
    static let baseHeaders: [(String, String)] = [("apns-topic", topic), ("apns-push-type", "alert")]

    /// A POST to `/3/device/<token>` with the baseline headers, plus `extra` headers, minus the
    /// names in `removing`, with `replacing` values substituted for existing names.
    static func request(
        method: String = "POST", path: String? = nil, token: String = token,
        replacing: [String: String] = [:], removing: Set<String> = [],
        extra: [(String, String)] = [], body: String = alertBody
    ) -> HTTP2Request {
        request(
            method: method, path: path, token: token, replacing: replacing, removing: removing,
            extra: extra, bytes: Array(body.utf8))
    }

    static func request(
        method: String = "POST", path: String? = nil, token: String = token,
        replacing: [String: String] = [:], removing: Set<String> = [],
        extra: [(String, String)] = [], bytes: [UInt8]
    ) -> HTTP2Request {
        var fields: [HeaderField] = []
        for (name, value) in baseHeaders where !removing.contains(name) {
            fields.append(HeaderField(name: name, value: replacing[name] ?? value))
        }
        for (name, value) in replacing where !baseHeaders.contains(where: { $0.0 == name }) {
            fields.append(HeaderField(name: name, value: value))
        }
        for (name, value) in extra { fields.append(HeaderField(name: name, value: value)) }
        return HTTP2Request(method: method, path: path ?? "/3/device/\(token)", headers: fields, body: bytes)
    }

    static func validate(
        _ request: HTTP2Request, environment: APNsEnvironment = .sandbox,
        options: ValidationOptions = ValidationOptions(), defaultTopic: String? = nil,
        devices: [DeviceRegistration] = []
    ) -> ValidationResult {
        RequestValidator.validate(
            request, environment: environment, options: options, nowMilliseconds: now,
            defaultTopic: defaultTopic
        ) { key in devices.first { $0.token == key } }
    }
}

/// One table row: a request, its context, and the reason expected (`nil` = 200).
struct ValidationRow {
    var name: String
    var request: HTTP2Request
    var expected: Reason?
    var options = ValidationOptions()
    var environment: APNsEnvironment = .sandbox
    var defaultTopic: String?
    var devices: [DeviceRegistration] = []
    var line: UInt = #line

    init(
        _ name: String, _ request: HTTP2Request, _ expected: Reason?, options: ValidationOptions = ValidationOptions(),
        environment: APNsEnvironment = .sandbox, defaultTopic: String? = nil, devices: [DeviceRegistration] = [],
        line: UInt = #line
    ) {
        self.name = name
        self.request = request
        self.expected = expected
        self.options = options
        self.environment = environment
        self.defaultTopic = defaultTopic
        self.devices = devices
        self.line = line
    }
}

extension XCTestCase {
    /// Runs every row and checks its reason and the matching status; returns the verdicts.
    @discardableResult
    func check(_ rows: [ValidationRow], file: StaticString = #filePath) -> [ValidationResult] {
        rows.map { row in
            let verdict = ValidationFixture.validate(
                row.request, environment: row.environment, options: row.options,
                defaultTopic: row.defaultTopic, devices: row.devices)
            XCTAssertEqual(verdict.reason, row.expected, row.name, file: file, line: row.line)
            XCTAssertEqual(verdict.status, row.expected?.status ?? 200, row.name, file: file, line: row.line)
            return verdict
        }
    }
}
