import HTTPFields

/// Builds the APNs request `POST /3/device/<token>` from `SendOptions`.
public enum SendRequestBuilder {
    /// The request carrying `payload`, with the `apns-*` and `authorization` fields the options
    /// give, in APNs documentation order, then the `--header` fields (which replace same-named ones).
    public static func request(_ options: SendOptions, payload: [UInt8]) -> HTTP2ClientRequest {
        var fields: [HeaderField] = []
        if let topic = options.topic { fields.append(HeaderField(name: "apns-topic", value: topic)) }
        if let pushType = options.pushType { fields.append(HeaderField(name: "apns-push-type", value: pushType)) }
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
        return HTTP2ClientRequest(
            method: "POST", path: "/3/device/\(options.deviceToken)", headers: fields, body: payload)
    }
}
