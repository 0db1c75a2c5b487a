import APNsCore
import Devices
import Foundation
import JSONInput
import JSONSupport

/// The `/v1/devices` endpoints: registrations, and the virtual devices among them
/// (docs/device-model.md §7).
extension ControlAPI {
    /// The default `limit` of `GET /v1/devices`: a page of 1,000 devices is about 0.5 MB of JSON
    /// (100,000 in one answer took 11.5 s and 50 MB).
    static let defaultDeviceLimit = 1000

    /// `GET /v1/devices?limit=&after=`: `{"devices": [...], "count": N (in this page), "total":
    /// N (registered), "more": Bool}`, token order, at most `limit` (default
    /// `defaultDeviceLimit`, 0 and up) devices whose token sorts after `after` (a token, any
    /// case: pass the last one seen to page on). 400 naming a bad parameter.
    func listDevices(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        let limit = try Self.integer("limit", in: query, default: Self.defaultDeviceLimit, range: 0...Int.max)
        var after: String?
        if let text = query["after"] {
            do {
                after = try Self.deviceToken(text)
            } catch {
                throw .badRequest("after: \(error.message)")
            }
        }
        // Each virtual device of the page is caught up with the clock as it is read
        // (`DeviceBook.lifecycle(of:)`), not every device registered.
        let page = registry.page(after: after, limit: limit)
        return ControlResponse(
            status: 200,
            json: [
                "count": .int(Int64(page.registrations.count)), "total": .int(Int64(page.total)),
                "more": .bool(page.more), "devices": .array(page.registrations.map { json(of: $0) }),
            ])
    }

    func clearDevices() -> ControlResponse {
        devices.clear()
        return ControlResponse(status: 200, json: ["removed": .int(Int64(registry.clear()))])
    }

    func device(tokenText: String) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        guard let device = registry.lookup(token) else { throw .notFound("no device with token \(token)") }
        return ControlResponse(status: 200, json: json(of: device))
    }

    /// A registration as the API shows it: today's keys, plus the device's state when it is virtual.
    private func json(of registration: DeviceRegistration) -> JSONNode {
        guard let lifecycle = devices.lifecycle(of: registration.token) else { return registration.jsonValue() }
        return lifecycle.jsonValue(registration: registration)
    }

    func putDevice(tokenText: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        let decoded = try ControlBody.decode(DeviceBody.self, from: body, form: DeviceBody.form)
        var device = try decoded.registration(token: token, nowMilliseconds: nowMilliseconds)
        let created: Bool
        if let virtual = try decoded.virtualDevice(token: token) {
            try checkChannels(of: virtual)
            let previous = devices.lifecycle(of: token).flatMap { lifecycle in
                registry.lookup(token).map { (device: lifecycle.device, registration: $0) }
            }
            do {
                try devices.put(virtual)
            } catch {
                throw .badRequest(error.description)
            }
            // An app not installed: its token is unregistered since then (docs/device-model.md §2.3).
            device = device.following(
                virtual, previous: previous, removedApp: devices.options.removedApp,
                nowMilliseconds: registryNowMilliseconds)
            created = registry.put(device)
        } else {
            // A plain PUT would drop a virtual device's state without a word: only on request.
            if !decoded.asksPlain, devices.lifecycle(of: token) != nil {
                throw .conflict(
                    "device \(token) is a virtual device; a PUT without device-model fields would drop its state "
                        + "(stored, delivered and shown notifications): PUT it with \"virtual\": true to keep it "
                        + "virtual, PATCH its device-model fields, or send \"virtual\": false to make it plain")
            }
            created = registry.put(device)
            devices.remove(token: token)
        }
        return ControlResponse(status: created ? 201 : 200, json: json(of: device))
    }

    func patchDevice(tokenText: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        guard let registration = registry.lookup(token) else { throw .notFound("no device with token \(token)") }
        guard let lifecycle = devices.lifecycle(of: token) else {
            throw ControlError(
                status: 409,
                message:
                    "device \(token) is not a virtual device; PUT it with device-model fields (e.g. \"virtual\": true)")
        }
        let patch = try ControlBody.decode(DevicePatchBody.self, from: body, form: DevicePatchBody.form)
        let changed = try patch.applied(to: lifecycle.device)
        try checkChannels(of: changed)
        do {
            try devices.put(changed)
        } catch {
            throw .badRequest(error.description)
        }
        let updated = registration.following(
            changed, previous: (lifecycle.device, registration), removedApp: devices.options.removedApp,
            nowMilliseconds: registryNowMilliseconds)
        if updated != registration { registry.put(updated) }
        return ControlResponse(status: 200, json: json(of: updated))
    }

    /// Now on the clock the gateway's registry rule reads (the wall clock: `/v1/clock` does not
    /// move unregistration moments, docs/apns-behaviour.md), in milliseconds since the epoch: an
    /// app removed now is unregistered from now for the gateway too, whatever the offset.
    private var registryNowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    func interact(tokenText: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        let decoded = try ControlBody.decode(InteractionBody.self, from: body, form: InteractionBody.form)
        guard registry.lookup(token) != nil else { throw .notFound("no device with token \(token)") }
        let outcome: InteractionOutcome?
        do {
            outcome = try devices.interact(decoded.interaction, with: decoded.notification, token: token)
        } catch {
            throw .badRequest(error.description)
        }
        guard let outcome else {
            throw ControlError(status: 409, message: "device \(token) is not a virtual device")
        }
        return ControlResponse(status: 200, json: outcome.jsonValue())
    }

    /// Every channel `device` subscribes to must be a live channel of its app in its environment
    /// (docs/broadcast.md §5): 404 naming the first that is no channel at all, 400 naming one of
    /// another app or environment (`channels[N]`).
    private func checkChannels(of device: VirtualDevice) throws(ControlError) {
        for (index, id) in device.channels.enumerated()
        where channels.channel(id, bundleID: device.topic, environment: device.environment) == nil {
            if let other = channels.allChannels().first(where: { $0.id == id }) {
                throw .badRequest(
                    "channels[\(index)]: channel \(InputError.quoted(id)) belongs to \(other.bundleID) in "
                        + "\(other.environment.rawValue), not to the device's app \(device.topic) in "
                        + device.environment.rawValue)
            }
            throw .notFound(
                "channels[\(index)]: no channel \(InputError.quoted(id)) (create it first: POST /v1/channels, or "
                    + "POST /1/apps/\(device.topic)/channels on a listener)")
        }
    }

    func deleteDevice(tokenText: String) throws(ControlError) -> ControlResponse {
        let token = try Self.deviceToken(tokenText)
        devices.remove(token: token)
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
