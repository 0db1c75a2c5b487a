import JSONInput
import JSONSupport

/// `POST /v1/provider-tokens` (docs/console.md §6): a provider token signed with the server's
/// test key, for the web console's JWT generator and for tests that need a token a strict
/// listener accepts.
extension ControlAPI {
    /// Body `ProviderTokenMintBody` (or none) → 200 `{"token", "authorization", "header",
    /// "claims", "keyId", "teamId", "issuedAt", "expiresAt"}`: `iat` is the server clock's now
    /// (`/v1/clock`) less `ageSeconds`, `expiresAt` `iat` + 3600 (Apple's hour). 503 when the API
    /// has no test key (an embedded API, or `--keys` configured a key of the test key's ID).
    func mintProviderToken(body: [UInt8]) throws(ControlError) -> ControlResponse {
        let isBlank = body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let request =
            isBlank
            ? ProviderTokenMintBody()
            : try ControlBody.decode(ProviderTokenMintBody.self, from: body, form: ProviderTokenMintBody.form)
        guard let tokenMinter else {
            throw ControlError(
                status: 503,
                message: "this control API has no test key to sign provider tokens with (a key of the "
                    + "test key's ID is configured, or the API has no server)")
        }
        let now = credentialClock.now()
        guard now.isFinite, abs(now) < 9.0e15 else {
            throw ControlError(status: 503, message: "the server clock is out of range (/v1/clock)")
        }
        let issuedAt = Int64(now.rounded(.down)) - request.ageSeconds
        guard let token = tokenMinter.token(issuedAt: issuedAt) else {
            throw ControlError(status: 500, message: "the test key could not sign the token (OpenSSL)")
        }
        return ControlResponse(
            status: 200,
            json: [
                "token": .string(token),
                "authorization": .string("bearer " + token),
                "header": ["alg": .string("ES256"), "kid": .string(tokenMinter.keyID)],
                "claims": ["iss": .string(tokenMinter.teamID), "iat": .int(issuedAt)],
                "keyId": .string(tokenMinter.keyID),
                "teamId": .string(tokenMinter.teamID),
                "issuedAt": .int(issuedAt),
                "expiresAt": .int(issuedAt + 3600),
            ])
    }
}
