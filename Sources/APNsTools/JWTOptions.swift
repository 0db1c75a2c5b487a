/// What `mock-apns jwt` signs, parsed by `JWTArgumentParser`.
public struct JWTOptions: Sendable, Equatable {
    /// `--key`: the `.p8` auth key file.
    public var keyPath: String
    /// `--key-id`: the `kid` header.
    public var keyID: String
    /// `--team-id`: the `iss` claim.
    public var teamID: String
    /// `--issued-at`: the `iat` claim in seconds since the Unix epoch; `nil` means now.
    public var issuedAt: Int64?

    /// Options for a token from `keyPath` with `kid` = `keyID`, `iss` = `teamID`, `iat` = `issuedAt`.
    public init(keyPath: String, keyID: String, teamID: String, issuedAt: Int64? = nil) {
        self.keyPath = keyPath
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
    }
}
