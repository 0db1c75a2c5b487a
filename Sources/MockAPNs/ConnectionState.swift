import APNsAuth
import APNsCore

/// What MockAPNs keeps per connection, in `HTTP2Connection.context`; touched only on the
/// connection's loop thread.
final class ConnectionState {
    /// True while MAX_CONCURRENT_STREAMS is lowered to 1 (`apple-observed` profile).
    var streamsLowered = false
    /// Provider-token state: bound team and key, current token, verification cache.
    var token = TokenConnectionState()
    /// The client certificate, when one was presented (mutual TLS).
    var certificate: CertificateIdentity?
    /// Set when the certificate disqualifies the whole connection (untrusted, expired, other
    /// environment): the first request is answered with GOAWAY carrying this reason.
    var certificateRejection: Reason?
    /// Why the certificate was rejected, for the record.
    var certificateProblem: String?
    /// The previous request: a repeated payload is not parsed again, a repeated token not redacted again.
    let memo = RequestMemo()

    /// The connection's identity for `GET /v1/connections`: `certificate <subject>`,
    /// `token <key id> <team id>` once a push was accepted, or `none`.
    var authSummary: String {
        if let certificate { return "certificate " + certificate.subject }
        if let team = token.boundTeamID { return "token " + (token.boundKeyID ?? "?") + " " + team }
        return "none"
    }
}
