import APNsCore
import Foundation
import JSONInput
import JSONSupport

/// `POST /v1/validate/provider-token` (docs/console.md §6): a provider token checked as a
/// listener would check it, with its age against Apple's time rules.
extension ControlAPI {
    func validateProviderToken(body: [UInt8]) throws(ControlError) -> ControlResponse {
        let request = try ControlBody.decode(ProviderTokenBody.self, from: body, form: ProviderTokenBody.form)
        guard let tokenChecker else {
            throw ControlError(status: 503, message: "this control API has no listener to check tokens for")
        }
        var authorization = request.token.trimmingCharacters(in: .whitespaces)
        if !authorization.lowercased().hasPrefix("bearer ") { authorization = "bearer " + authorization }
        guard
            let check = tokenChecker.check(
                authorization: authorization, topic: request.topic, listener: request.listener)
        else {
            throw .notFound("no listener named \(request.listener ?? "")")
        }
        let now = credentialClock.now()
        var age: JSONNode = .null
        var refreshAt: JSONNode = .null
        var expiresAt: JSONNode = .null
        if let issuedAt = check.issuedAt {
            age = Self.wholeSeconds(now - issuedAt)
            refreshAt = Self.wholeSeconds(issuedAt + check.minimumRefreshSeconds)
            expiresAt = Self.wholeSeconds(issuedAt + check.maximumAgeSeconds)
        }
        return ControlResponse(
            status: 200,
            json: [
                "accepted": .bool(check.reason == nil),
                "reason": check.reason.map { .string($0.rawValue) } ?? .null,
                "verdict": .string(check.verdict),
                "listener": .string(check.listener),
                "environment": .string(check.environment.rawValue),
                "keyId": check.keyID.map { .string($0) } ?? .null,
                "teamId": check.teamID.map { .string($0) } ?? .null,
                "issuedAt": check.issuedAt.map { Self.wholeSeconds($0) } ?? .null,
                "keyConfigured": .bool(check.keyConfigured),
                "ageSeconds": age,
                "refreshAllowedAt": refreshAt,
                "expiresAt": expiresAt,
            ])
    }

    /// `seconds` rounded down as a JSON integer, or null when it is no time a JSON number holds
    /// exactly (a token's `iat` may be any number, e.g. `1e308` or `-1e300`).
    static func wholeSeconds(_ seconds: Double) -> JSONNode {
        guard seconds.isFinite, abs(seconds) < 9.0e15 else { return .null }
        return .int(Int64(seconds.rounded(.down)))
    }
}
