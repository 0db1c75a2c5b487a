import APNsAuth
import APNsCore
import Gateway

/// What MockAPNs keeps per connection, in `HTTP2Connection.context`; touched only on the
/// connection's loop thread.
final class ConnectionContext {
    /// The listener the connection arrived on.
    let listener: APNsRequestHandler.Listener
    /// The connection as the gateway and its records name it; made once, not per push.
    let info: PushOrigin
    /// Its credential check: provider-token state or client certificate.
    let credentials: ConnectionCredentials
    /// The `apple-observed` stream profile's state; nil when the listener runs another profile.
    /// Unchecked: touched on the loop thread only, per request.
    @exclusivity(unchecked) var streamProfile: StreamProfileState?
    /// The previous request: a repeated payload is not parsed again, a repeated token not redacted again.
    let memo = PreviousRequest()

    init(listener: APNsRequestHandler.Listener, info: PushOrigin, credentials: ConnectionCredentials) {
        self.listener = listener
        self.info = info
        self.credentials = credentials
    }
}
