import HTTPFields

/// Builds the APNs request `POST /3/device/<token>` from `SendOptions`, or the channel or
/// broadcast request of `SendOptions.channelAction` (docs/broadcast.md §A2).
public enum SendRequestBuilder {
    /// The request carrying `payload`, with the `apns-*` and `authorization` fields the options
    /// give, in APNs documentation order, then the `--header` fields (which replace same-named ones).
    public static func request(_ options: SendOptions, payload: [UInt8]) -> HTTP2ClientRequest {
        var fields: [HeaderField] = []
        let action = options.channelAction
        if let topic = options.topic, action == nil { fields.append(HeaderField(name: "apns-topic", value: topic)) }
        if let channelID = action?.channelID { fields.append(HeaderField(name: "apns-channel-id", value: channelID)) }
        if let pushType = options.pushType ?? (action?.takesPayload == true ? "liveactivity" : nil) {
            fields.append(HeaderField(name: "apns-push-type", value: pushType))
        }
        if let priority = options.priority {
            fields.append(HeaderField(name: "apns-priority", value: String(priority)))
        }
        if let expiration = options.expiration {
            fields.append(HeaderField(name: "apns-expiration", value: String(expiration)))
        }
        if let collapseID = options.collapseID {
            fields.append(HeaderField(name: "apns-collapse-id", value: collapseID))
        }
        if let apnsID = options.apnsID { fields.append(HeaderField(name: "apns-id", value: apnsID)) }
        if let authorization = options.authorization {
            fields.append(HeaderField(name: "authorization", value: authorization))
        }
        let replaced = Set(options.extraHeaders.map(\.name))
        fields = fields.filter { !replaced.contains($0.name) } + options.extraHeaders
        if let action {
            let (method, path) = action.target(bundleID: options.topic ?? "")
            var body: [UInt8] = []
            switch action {
            case .create(let policy):
                body = Array(#"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#.utf8)
            case .broadcast: body = payload
            case .read, .delete, .list: break
            }
            return HTTP2ClientRequest(method: method, path: path, headers: fields, body: body)
        }
        return HTTP2ClientRequest(
            method: "POST", path: "/3/device/\(options.deviceToken)", headers: fields, body: payload)
    }
}
