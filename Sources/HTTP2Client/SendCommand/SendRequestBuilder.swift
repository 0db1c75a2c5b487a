/// Builds the APNs request `POST /3/device/<token>` from `SendOptions`.
public enum SendRequestBuilder {
    /// The request carrying `payload`, with the `apns-*` and `authorization` fields the options
    /// give, in APNs documentation order, then the `--header` fields (which replace same-named ones).
    public static func request(_ options: SendOptions, payload: [UInt8]) -> HTTP2ClientRequest {
        var fields: [HTTP2Header] = []
        if let topic = options.topic { fields.append(HTTP2Header("apns-topic", topic)) }
        if let pushType = options.pushType { fields.append(HTTP2Header("apns-push-type", pushType)) }
        if let priority = options.priority { fields.append(HTTP2Header("apns-priority", String(priority))) }
        if let expiration = options.expiration { fields.append(HTTP2Header("apns-expiration", String(expiration))) }
        if let collapseID = options.collapseID { fields.append(HTTP2Header("apns-collapse-id", collapseID)) }
        if let apnsID = options.apnsID { fields.append(HTTP2Header("apns-id", apnsID)) }
        if let authorization = options.authorization { fields.append(HTTP2Header("authorization", authorization)) }
        let replaced = Set(options.extraHeaders.map(\.name))
        fields = fields.filter { !replaced.contains($0.name) } + options.extraHeaders
        return HTTP2ClientRequest(
            method: "POST", path: "/3/device/\(options.deviceToken)", headers: fields, body: payload)
    }
}
