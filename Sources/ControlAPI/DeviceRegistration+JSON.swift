import APNsCore
import JSONInput
import JSONSupport

extension DeviceRegistration {
    /// The registration as the control API shows it: `{"token", "topic" (or null), "environment",
    /// "unregisteredAt" (milliseconds since the epoch, or null), "expired"}`.
    public func jsonValue() -> JSONNode {
        [
            "environment": .string(environment.rawValue),
            "expired": .bool(expired),
            "token": .string(token),
            "topic": .string(topic),
            "unregisteredAt": .int(unregisteredAt),
        ]
    }
}
