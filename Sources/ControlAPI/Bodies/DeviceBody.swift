import APNsCore
import Devices
import JSONInput
import JSONSupport

/// The body of `PUT /v1/devices/{token}`: a JSON object with `environment` (`sandbox` or
/// `production`, any case, required), `topic` (a non-empty string or null), `unregisteredAt`
/// (integer milliseconds since the epoch or an ISO 8601 string, `ISO8601Timestamp`'s range, or
/// null), `expired` (true or false, default false) and optionally `token` (must equal the
/// path's, any case). Other keys are refused.
///
/// A body with any device-model field (`DeviceBody.modelKeys`: `virtual`, `connectivity`,
/// `appState`, `settings`, `capabilities`, `categories`, `foregroundPresentation`, `installed`,
/// `channels`: the broadcast channels it subscribes to, docs/broadcast.md §5)
/// registers a virtual device (docs/device-model.md §1, §7); `"virtual": true` alone registers one
/// with every default. A virtual device needs a `topic` (its bundle ID); its fields are read as
/// `VirtualDevice` reads them, and a refusal names the field (`categories[1].identifier`).
struct DeviceBody: Decodable, Equatable {
    var token: String?
    var topic: String?
    var environment: APNsEnvironment
    /// Milliseconds since the Unix epoch.
    var unregisteredAt: Int64?
    var expired: Bool
    /// The device-model fields given, by wire name, as sent.
    var model: [String: JSONNode]
    /// True for `"virtual": false`: the body asks for a plain registration even where a virtual
    /// device is registered now (its state is then dropped).
    var asksPlain = false

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"environment":"sandbox","topic":"com.example.app"}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, environment, unregisteredAt, expired
        case virtual, connectivity, appState, settings, capabilities, categories, foregroundPresentation, installed
        case channels
    }

    /// The keys that make the registration a virtual device.
    static let modelKeys: [CodingKeys] = [
        .virtual, .connectivity, .appState, .settings, .capabilities, .categories, .foregroundPresentation,
        .installed, .channels,
    ]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ message: String) -> InputError {
            InputError(at: container.codingPath + [key], message)
        }
        token = try container.decodeIfPresent(String.self, forKey: .token)
        switch try container.decodeIfPresent(JSONNode.self, forKey: .environment) {
        case .string(let text)? where APNsEnvironment(rawValue: text.lowercased()) != nil:
            environment = APNsEnvironment(rawValue: text.lowercased())!
        case let other:
            let near = other.flatMap { if case .string(let text) = $0 { text } else { nil } }
            throw refuse(
                .environment,
                (other == nil ? "missing (required); expected " : "expected ") + #""sandbox" or "production""#
                    + (other.map { ", got \($0.rendered)" } ?? "")
                    + (near.map { ClosestMatch.hint($0, among: ["sandbox", "production"]) } ?? ""))
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .topic) {
        case nil: topic = nil
        case .string(let text)? where !text.isEmpty: topic = text
        case let other?: throw refuse(.topic, "expected a non-empty string or null, got \(other.rendered)")
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .unregisteredAt) {
        case nil: unregisteredAt = nil
        case .int(let ms)? where ISO8601Timestamp(epochMilliseconds: ms) != nil: unregisteredAt = ms
        case .string(let text)? where ISO8601Timestamp(text) != nil:
            unregisteredAt = ISO8601Timestamp(text)?.epochMilliseconds
        case let other?:
            throw refuse(
                .unregisteredAt,
                "expected a non-negative integer (milliseconds since the epoch) or an ISO 8601 string like "
                    + "2026-11-30T08:49:03.123Z, up to the year 9999, got \(other.rendered)")
        }
        expired = try container.decodeIfPresent(Bool.self, forKey: .expired) ?? false
        model = [:]
        for key in Self.modelKeys where container.contains(key) {
            // A null field still makes the device virtual, with that field's default, as in the
            // configuration file: before, it was dropped and the device registered plain.
            model[key.rawValue] =
                try container.decodeNil(forKey: key) ? .null : container.decode(JSONNode.self, forKey: key)
        }
        if model["virtual"] == .null { model["virtual"] = nil }
        switch model["virtual"] {
        case nil, .bool(true)?: break
        case .bool(false)? where model.count > 1:
            let others = Self.modelKeys.map(\.rawValue).filter { $0 != "virtual" && model[$0] != nil }
            throw refuse(
                .virtual,
                "false, but device-model fields are given (\(others.joined(separator: ", "))); drop them or "
                    + "set true")
        case .bool(false)?:
            model = [:]
            asksPlain = true
        case let other?: throw refuse(.virtual, "expected true or false, got \(other.rendered)")
        }
    }

    /// True when the body registers a virtual device: it has a device-model field.
    var isVirtual: Bool { !model.isEmpty }

    /// The virtual device this body describes for `token` (validated, lowercase), nil when it
    /// has no device-model field.
    /// - Throws: a 400 naming the field: `topic` when absent, any device-model field `VirtualDevice`
    ///   refuses.
    func virtualDevice(token: String) throws(ControlError) -> VirtualDevice? {
        guard isVirtual else { return nil }
        guard let topic else {
            throw .badRequest("topic: required for a virtual device (the app's bundle ID, its apns-topic)")
        }
        var object = model
        object["virtual"] = nil
        object["token"] = .string(token)
        object["topic"] = .string(topic)
        object["environment"] = .string(environment.rawValue)
        do {
            return try StrictJSONDecoder().decode(VirtualDevice.self, from: JSONNode.object(object))
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// The registration of `token` (the path's, validated and lowercased) this body describes;
    /// `expired: true` without `unregisteredAt` records `nowMilliseconds` as the moment of marking.
    /// - Throws: a 400 when the body's `token` differs from the path's.
    func registration(token: String, nowMilliseconds: Int64) throws(ControlError) -> DeviceRegistration {
        if let sent = self.token, sent.lowercased() != token {
            throw .badRequest("token: must equal the token in the path (\(token)), got \(InputError.quoted(sent))")
        }
        return DeviceRegistration(
            token: token, topic: topic, environment: environment,
            unregisteredAt: unregisteredAt ?? (expired ? nowMilliseconds : nil), expired: expired)
    }
}
