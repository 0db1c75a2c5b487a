import APNsCore
import JSONSupport

/// The `/v1/devices` endpoints.
extension ControlAPI {
    func listDevices() -> ControlResponse {
        let devices = registry.all()
        return ControlResponse(
            status: 200,
            json: [
                "count": .int(Int64(devices.count)),
                "devices": .array(devices.map { $0.jsonValue() }),
            ])
    }

    func clearDevices() -> ControlResponse {
        ControlResponse(status: 200, json: ["removed": .int(Int64(registry.clear()))])
    }

    func device(tokenText: String) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        guard let device = registry.lookup(token) else { throw .notFound("no device with token \(token)") }
        return ControlResponse(status: 200, json: device.jsonValue())
    }

    func putDevice(tokenText: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        let device = try ControlBody.decode(DeviceBody.self, from: body, form: DeviceBody.form)
            .registration(token: token, nowMilliseconds: nowMilliseconds)
        let created = registry.put(device)
        return ControlResponse(status: created ? 201 : 200, json: device.jsonValue())
    }

    func deleteDevice(tokenText: String) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        guard registry.remove(token: token) else { throw .notFound("no device with token \(token)") }
        return ControlResponse(status: 200, json: ["deleted": .string(token)])
    }

    /// The path's token lowercased; 400 unless it is non-empty, even-length hexadecimal of at
    /// most 200 characters, the longest the APNs port accepts (docs/apns-behaviour.md §9).
    static func deviceToken(_ text: String) throws(ControlError) -> String {
        guard text.utf8.count <= ValidationOptions().maxTokenLength else {
            throw .badRequest(
                "token must be at most \(ValidationOptions().maxTokenLength) hex characters, got \(text.utf8.count)")
        }
        let isHex = text.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66)
        }
        guard !text.isEmpty, isHex, text.utf8.count % 2 == 0 else {
            throw .badRequest("token must be non-empty, even-length hexadecimal, got '\(text)'")
        }
        return text.lowercased()
    }
}
