import APNsCore
import Configuration
import HTTPFields
import LegacyBinary

/// A binary notification through the APNs checks of `/3/device` (docs/legacy-binary.md §5): it is
/// put as the HTTP/2 request it stands for (`POST /3/device/<token hex>`, `apns-topic` from the
/// client certificate, `apns-priority` and `apns-expiration` from the frame, `apns-push-type` as
/// the rules infer it, since the binary protocol has none) and judged by `RequestValidator`, the
/// HTTP/2 path's own rules; the verdict's reason is mapped to Apple's binary status.
struct BinaryNotificationJudge: Sendable {
    /// The listener's settings (environment, the answer to unregistered tokens).
    let listener: BinaryListenerConfiguration
    /// The HTTP/2 path's validation knobs (registry mode, lints as errors, ...).
    let options: ValidationOptions
    /// The device registry.
    let registry: DeviceRegistry

    /// What the checks made of one notification.
    struct Judgement {
        /// The HTTP/2 request it stood for (headers as derived, body the payload).
        var request: HTTP2Request
        /// The HTTP/2 rules' verdict.
        var verdict: ValidationResult
        /// The error status to answer with, nil to accept (no answer).
        var status: BinaryStatus?
    }

    /// The request `notification` stands for; `pushType` nil leaves `apns-push-type` out.
    static func request(for notification: BinaryNotification, topic: String?, pushType: String?) -> HTTP2Request {
        var headers: [HeaderField] = []
        if let topic { headers.append(HeaderField(name: "apns-topic", value: topic)) }
        if let pushType { headers.append(HeaderField(name: "apns-push-type", value: pushType)) }
        headers.append(HeaderField(name: "apns-priority", value: String(notification.effectivePriority)))
        if let expiry = notification.expiry {
            headers.append(HeaderField(name: "apns-expiration", value: String(expiry)))
        }
        return HTTP2Request(
            streamID: 0, method: "POST", path: "/3/device/" + notification.tokenHex, authority: nil,
            headers: headers, body: notification.payload)
    }

    /// Judges `notification` sent with the certificate topic `topic` (nil: none presented).
    func judge(_ notification: BinaryNotification, topic: String?, nowMilliseconds: Int64) -> Judgement {
        let registry = self.registry
        // The push type the rules infer from the payload, asked without lints as errors so that
        // its absence is not itself refused; then the real check with it.
        var inferring = options
        inferring.lintsAsErrors = false
        let inferred = RequestValidator.validate(
            Self.request(for: notification, topic: topic, pushType: nil), environment: listener.environment,
            options: inferring, nowMilliseconds: nowMilliseconds, lookup: { registry.lookup($0) }
        ).pushType
        let request = Self.request(for: notification, topic: topic, pushType: inferred?.rawValue)
        let verdict = RequestValidator.validate(
            request, environment: listener.environment, options: options, nowMilliseconds: nowMilliseconds,
            lookup: { registry.lookup($0) })
        var status = verdict.reason.map(Self.status(for:))
        if status == .invalidToken && listener.unregistered == .accept { status = nil }
        return Judgement(request: request, verdict: verdict, status: status)
    }

    /// Apple's binary status for the HTTP/2 reason (docs/legacy-binary.md §5): the token reasons
    /// (unknown under a closed registry, other environment, not for the topic, unregistered,
    /// expired) are 8; no topic 3, a bad one 6; a payload that is not a JSON object 1 (processing
    /// error: Apple documented none for it); too large 7; a priority lint made an error 128;
    /// anything else 255.
    static func status(for reason: Reason) -> BinaryStatus {
        switch reason {
        case .missingDeviceToken: .missingDeviceToken
        case .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken: .invalidToken
        case .missingTopic: .missingTopic
        case .badTopic, .topicDisallowed: .invalidTopicSize
        case .payloadEmpty: .processingError
        case .payloadTooLarge: .invalidPayloadSize
        case .badPriority, .invalidPushType: .protocolError
        default: .unknown
        }
    }
}
