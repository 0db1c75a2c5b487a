import APNsAuth
import APNsCore
import Devices
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
    /// The body of the previous push to a virtual device on this connection and its values: the
    /// same body (a sender notifying many devices) is not parsed again (docs/device-model.md §7).
    var lastDevicePayload: (body: [UInt8], payload: DevicePayload)?

    init(listener: APNsRequestHandler.Listener, info: PushOrigin, credentials: ConnectionCredentials) {
        self.listener = listener
        self.info = info
        self.credentials = credentials
    }
}
