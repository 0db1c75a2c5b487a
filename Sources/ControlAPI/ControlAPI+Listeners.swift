import Faults
import Foundation
import JSONSupport

/// `GET /v1/listeners` and `PUT /v1/listeners/{name}/conditions`: how each listener treats new
/// connections (handshake delay, silence, refusal), to reproduce TLS-level failures (docs/field-cases.md C15).
extension ControlAPI {
    /// `{"listeners":[{"name","environment","conditions":{"handshakeDelayMs","silent","refuseUntil"}}]}`.
    func listenersResponse() -> ControlResponse {
        let items: [ListenerItem] = (listenerConditions?.listeners ?? []).map { listener in
            ListenerItem(
                name: listener.name, environment: listener.environment.rawValue,
                conditions: listenerConditions?.conditions(of: listener.name) ?? ListenerConditions())
        }
        return ControlResponse(status: 200, encoding: ["listeners": items])
    }

    /// Body `{"handshakeDelayMs": 0-600000, "silent": bool, "refuseMs": 0-86400000}` (all
    /// optional; refuseMs counts from now, 0 ends a refusal); answers the listener as listed.
    func putListenerConditions(name: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        guard let board = listenerConditions, var conditions = board.conditions(of: name) else {
            throw .notFound("no listener named '\(name)'")
        }
        struct Body: Decodable {
            let handshakeDelayMs: Int64?
            let silent: Bool?
            let refuseMs: Int64?
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw .badRequest("body must be a JSON object with handshakeDelayMs, silent and/or refuseMs")
        }
        if let unknown = object.keys.first(where: { !ListenerConditionsUpdate.fields.contains($0) }) {
            throw .badRequest("unknown field '\(unknown)'; fields: handshakeDelayMs, silent, refuseMs")
        }
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw .badRequest("handshakeDelayMs and refuseMs must be integers (milliseconds), silent a boolean")
        }
        let update = ListenerConditionsUpdate(
            handshakeDelayMs: decoded.handshakeDelayMs, silent: decoded.silent,
            refuseMs: decoded.refuseMs)
        if let problem = update.problem { throw .badRequest(problem) }
        conditions = update.applied(to: conditions, nowMilliseconds: nowMilliseconds)
        board.set(conditions, for: name)
        let environment = board.listeners.first { $0.name == name }?.environment.rawValue ?? ""
        return ControlResponse(
            status: 200, encoding: ListenerItem(name: name, environment: environment, conditions: conditions))
    }

    private struct ListenerItem: Encodable {
        let name: String
        let environment: String
        let conditions: ListenerConditions
    }
}
