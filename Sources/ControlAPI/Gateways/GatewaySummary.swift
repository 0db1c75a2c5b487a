import APNsCore
import JSONInput
import JSONSupport

/// One isolated gateway as `POST /v1/gateways` and `GET /v1/gateways[/{id}]` answer it
/// (docs/testing.md "Isolated gateways").
public struct GatewaySummary: Sendable, Equatable {
    /// `g1`, `g2`, …
    public var id: String
    /// Its listener's name (in records and events).
    public var name: String
    /// The bound APNs port.
    public var port: Int
    /// The push URL, e.g. `https://127.0.0.1:40123`.
    public var url: String
    /// The environment served.
    public var environment: APNsEnvironment
    /// `none`, `permissive` or `strict`.
    public var auth: String
    /// Seconds untouched before it is deleted; 0: never.
    public var ttlSeconds: Int
    /// Records kept.
    public var maxRecords: Int
    /// Seconds since the Unix epoch.
    public var createdAt: Double
    /// When it expires if untouched, seconds since the Unix epoch; nil for never.
    public var expiresAt: Double?

    /// Memberwise initializer.
    public init(
        id: String, name: String, port: Int, url: String, environment: APNsEnvironment, auth: String,
        ttlSeconds: Int, maxRecords: Int, createdAt: Double, expiresAt: Double?
    ) {
        self.id = id
        self.name = name
        self.port = port
        self.url = url
        self.environment = environment
        self.auth = auth
        self.ttlSeconds = ttlSeconds
        self.maxRecords = maxRecords
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The path every control endpoint of this gateway is served under.
    public var controlBase: String { "/v1/gateways/" + id }

    /// `{"id","name","port","url","controlBase","environment","auth","ttlSeconds","maxRecords","createdAt","expiresAt"}`,
    /// times in ISO 8601 (`expiresAt` null for never).
    public var json: JSONNode {
        [
            "id": .string(id), "name": .string(name), "port": .int(Int64(port)), "url": .string(url),
            "controlBase": .string(controlBase), "environment": .string(environment.rawValue), "auth": .string(auth),
            "ttlSeconds": .int(Int64(ttlSeconds)), "maxRecords": .int(Int64(maxRecords)),
            "createdAt": .string(ISO8601Timestamp.format(epochSeconds: createdAt)),
            "expiresAt": expiresAt.map { .string(ISO8601Timestamp.format(epochSeconds: $0)) } ?? .null,
        ]
    }
}
