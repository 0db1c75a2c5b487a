import APNsCore
import JSONInput
import JSONSupport

/// The body of `POST /v1/gateways` (docs/testing.md "Isolated gateways"): nothing, or a JSON
/// object whose keys are all optional: `name` (1 to 64 letters, digits, `-`, `_`, `.`; not `.`, `..` or `g<digits>`), `port`
/// (0 to 65535, 0 = any free one), `environment` (`sandbox` or `production`), `auth` (`none`,
/// `permissive` or `strict`), `ttlSeconds` (0 to 86,400; 0 = never expires), `maxRecords` (at
/// least 1; its upper bound is the server's, which a refusal states), `devices` (an array of
/// `PUT /v1/devices/{token}` bodies, each with its `token`) and `faults` (a `POST /v1/faults`
/// body). An unknown key is a 400 naming it, as in every body; a device is read as
/// `PUT /v1/devices/{token}` reads it, its refusals named under `devices[N]`
/// (`devices[1].token`, `devices[0].environment`); `faults` is read by its own endpoint when the
/// gateway is made, its errors under `faults`.
public struct GatewayBody: Decodable, Equatable, Sendable {
    /// The listener's name, or nil for the gateway's id.
    public var name: String?
    /// The APNs port; 0 picks a free one.
    public var port: Int = 0
    /// The environment served, or nil for the server's first listener's.
    public var environment: APNsEnvironment?
    /// `none`, `permissive` or `strict`, or nil for the server's first listener's.
    public var auth: String?
    /// Seconds untouched after which the gateway is deleted (0: never), or nil for the default.
    public var ttlSeconds: Int?
    /// Records kept, or nil for the server's per-gateway default.
    public var maxRecords: Int?
    /// The devices to register, each a JSON object with `token`, as `PUT /v1/devices/{token}` takes it.
    public var devices: [JSONNode] = []
    /// The fault rules, as `POST /v1/faults` takes them; nil for none.
    public var faults: JSONNode?

    /// The provider-authentication modes a gateway may check with.
    public static let authModes = ["none", "permissive", "strict"]
    /// The accepted `ttlSeconds`, seconds (a day at most).
    public static let ttlRange = 0...86_400
    /// The accepted `port`s.
    static let portRange = 0...65_535
    /// The body's shape, for messages.
    static let form = #"a JSON object like {"name": "suite-a", "ttlSeconds": 600}, every key optional"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, port, environment, auth, ttlSeconds, maxRecords, devices, faults
    }

    /// A body with every default.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let name = try container.decodeIfPresent(String.self, forKey: .name) {
            guard Self.isValidName(name) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.name],
                    "expected 1 to 64 letters, digits, '-', '_' or '.', got \(InputError.quoted(name))")
            }
            guard !Self.isReservedName(name) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.name],
                    "\(InputError.quoted(name)) is reserved: '.', '..' and names like a gateway's id (g<digits>) are refused, so that names and ids never collide"
                )
            }
            self.name = name
        }
        port = try container.decodeIfPresent(Int.self, forKey: .port, in: Self.portRange) ?? 0
        if let text = try container.decodeIfPresent(String.self, forKey: .environment) {
            guard let environment = APNsEnvironment(rawValue: text.lowercased()) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.environment],
                    #"expected "sandbox" or "production", got "# + InputError.quoted(text)
                        + ClosestMatch.hint(text, among: ["sandbox", "production"]))
            }
            self.environment = environment
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .auth) {
            guard Self.authModes.contains(text) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.auth],
                    "expected one of " + Self.authModes.joined(separator: ", ") + ", got " + InputError.quoted(text)
                        + ClosestMatch.hint(text, among: Self.authModes))
            }
            auth = text
        }
        ttlSeconds = try container.decodeIfPresent(Int.self, forKey: .ttlSeconds, in: Self.ttlRange)
        // Any integer here; `read` checks it against the server's range, which it names.
        maxRecords = try container.decodeIfPresent(Int.self, forKey: .maxRecords, in: Int.min...Int.max)
        if let devices = try container.decodeIfPresent([JSONNode].self, forKey: .devices) {
            for (index, device) in devices.enumerated() {
                let path = container.codingPath + [CodingKeys.devices, IndexKey(index)]
                guard case .object(let members) = device, let token = members["token"] else {
                    throw InputError(
                        at: path,
                        #"expected a device object with its "token", like {"token":"…","environment":"sandbox"}"#)
                }
                guard case .string(let text) = token, Self.isValidToken(text) else {
                    throw InputError(
                        at: path + [DeviceKey.token],
                        "expected non-empty, even-length hexadecimal of at most \(ValidationOptions().maxTokenLength) "
                            + "characters, got " + token.rendered)
                }
                // Read as `PUT /v1/devices/{token}` reads it, so a refusal names the field under `devices[N]`.
                do {
                    _ = try StrictJSONDecoder().decode(DeviceBody.self, from: device)
                } catch {
                    throw error.prefixed(InputError.path(path))
                }
            }
            self.devices = devices
        }
        faults = try container.decodeIfPresent(JSONNode.self, forKey: .faults)
        if faults == .null { faults = nil }
    }

    /// The body read from `bytes`: every default when empty, else a 400 naming the field;
    /// `maxRecords` must lie in `maxRecordsRange` (the server's, `GatewayDirectory.maxRecordsRange`),
    /// which the refusal states.
    public static func read(
        _ bytes: [UInt8], maxRecordsRange: ClosedRange<Int> = defaultMaxRecordsRange
    ) throws(ControlError) -> GatewayBody {
        guard bytes.contains(where: { !(" \t\r\n" as String).utf8.contains($0) }) else { return GatewayBody() }
        let body = try ControlBody.decode(GatewayBody.self, from: bytes, form: form)
        if let maxRecords = body.maxRecords, !maxRecordsRange.contains(maxRecords) {
            throw .badRequest(Self.maxRecordsRefusal(maxRecords, range: maxRecordsRange))
        }
        return body
    }

    /// The `maxRecords` a body may ask for when the server states no range of its own.
    public static let defaultMaxRecordsRange = 1...Int(Int32.max)

    /// The refusal of a `maxRecords` outside `range`, naming it:
    /// `maxRecords: expected an integer from 1 to 10000 (the server's maxRecords), got 0`.
    public static func maxRecordsRefusal(_ value: Int, range: ClosedRange<Int>) -> String {
        "maxRecords: expected an integer from \(range.lowerBound) to \(range.upperBound) (the server's maxRecords), got \(value)"
    }

    /// True for a token `PUT /v1/devices/{token}` takes: non-empty, even-length hexadecimal of
    /// at most `ValidationOptions.maxTokenLength` characters.
    static func isValidToken(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count % 2 == 0 && bytes.count <= ValidationOptions().maxTokenLength
            && bytes.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66)
            }
    }

    /// True for 1 to 64 ASCII letters, digits, `-`, `_` and `.`.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    /// True for `.`, `..` and `g` followed by digits only (the form of a gateway's id, which a
    /// later unnamed gateway could be given as its id and name).
    static func isReservedName(_ name: String) -> Bool {
        if name == "." || name == ".." { return true }
        let bytes = Array(name.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "g") else { return false }
        return bytes.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A device's `token` in a coding path.
    private enum DeviceKey: String, CodingKey { case token }

    /// An array index in a coding path, rendered `[N]` (`InputError.path` knows a position by
    /// its `Index N` string value).
    private struct IndexKey: CodingKey {
        var intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}
