/// Apple's channel-management ports (Apple, *Sending channel management requests to APNs*;
/// docs/broadcast.md A1): `api-manage-broadcast.sandbox.push.apple.com:2195` and
/// `api-manage-broadcast.push.apple.com:2196`, which node-apn 7.1 and APNSwift use by default.
/// The legacy binary gateway (2195) and feedback service (2196) had the same numbers on other
/// hosts, so on one address the two pairs collide (`--channel-management`).
public enum ChannelManagementPort {
    /// The sandbox (development) channel-management port.
    public static let sandbox = 2195
    /// The production channel-management port.
    public static let production = 2196
}
