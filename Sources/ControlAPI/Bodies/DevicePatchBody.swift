import Devices
import Foundation
import JSONInput
import JSONSupport

/// The body of `PATCH /v1/devices/{token}` for a virtual device (docs/device-model.md §7): a JSON
/// object with one or more of `connectivity`, `appState`, `settings`, `capabilities`,
/// `categories`, `foregroundPresentation`, `installed` and `channels` (docs/broadcast.md §5),
/// each replacing that field whole, read
/// as `VirtualDevice` reads it (`settings` keys left out take their defaults, `true`). Identity
/// (`token`, `topic`, `environment`) is not patched: PUT another registration. Other keys are
/// refused with a "did you mean"; an empty object is refused.
struct DevicePatchBody: Decodable, Equatable {
    /// The fields given, by wire name, as sent.
    var fields: [String: JSONNode]

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"connectivity":"online","appState":"foreground"}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case connectivity, appState, settings, capabilities, categories, foregroundPresentation, installed, channels
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = [:]
        for key in CodingKeys.allCases {
            // null would read as absent: name the field rather than answer "no field given".
            if container.contains(key), try container.decodeNil(forKey: key) {
                throw InputError(
                    at: container.codingPath + [key],
                    "expected a value, got null (a PATCH sets a field; to go back to a default, send the default)")
            }
            if let value = try container.decodeIfPresent(JSONNode.self, forKey: key) { fields[key.rawValue] = value }
        }
    }

    /// `device` with the body's fields put in.
    /// - Throws: a 400 naming the field `VirtualDevice` refuses, or when the body names no field.
    func applied(to device: VirtualDevice) throws(ControlError) -> VirtualDevice {
        guard !fields.isEmpty else {
            throw .badRequest(
                "body must be \(Self.form): expected at least one of "
                    + CodingKeys.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let encoded = try? JSONEncoder().encode(device),
            case .object(var object)? = try? JSONNode(decoding: [UInt8](encoded))
        else { throw ControlError(status: 500, message: "the device could not be written as JSON") }
        for (key, value) in fields { object[key] = value }
        do {
            return try StrictJSONDecoder().decode(VirtualDevice.self, from: JSONNode.object(object))
        } catch {
            throw .badRequest(error.description)
        }
    }
}
