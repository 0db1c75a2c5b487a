import JSONInput

/// The body of `POST /v1/provider-tokens`: `{"ageSeconds": 3700}`, how long ago (by the server
/// clock, `/v1/clock`) the token is issued, whole seconds from 0 to 86,400 (default 0: now); an
/// empty body or `{}` asks for a token issued now. Other keys are refused.
struct ProviderTokenMintBody: Decodable, Equatable {
    /// Seconds subtracted from now for the `iat` claim.
    var ageSeconds: Int64 = 0

    /// The accepted ages, seconds (a day: past the hour of `ExpiredProviderToken`).
    static let ageRange: ClosedRange<Int64> = 0...86_400

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"ageSeconds": 0} (whole seconds from 0 to 86400), or no body"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case ageSeconds
    }

    init(ageSeconds: Int64 = 0) { self.ageSeconds = ageSeconds }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ageSeconds = try container.decodeIfPresent(Int64.self, forKey: .ageSeconds, in: Self.ageRange) ?? 0
    }
}
