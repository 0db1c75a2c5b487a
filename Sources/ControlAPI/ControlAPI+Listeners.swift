import Faults
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

    /// Body `ListenerConditionsUpdate` (`{"handshakeDelayMs": 0-600000, "silent": bool,
    /// "refuseMs": 0-86400000}`, all optional, no other key; refuseMs counts from now, 0 ends a
    /// refusal); answers the listener as listed. 400 naming the field otherwise.
    func putListenerConditions(name: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        guard let board = listenerConditions, var conditions = board.conditions(of: name) else {
            throw .notFound("no listener named '\(name)'")
        }
        let update = try ControlBody.decode(
            ListenerConditionsUpdate.self, from: body, form: Self.listenerConditionsForm)
        conditions = update.applied(to: conditions, nowMilliseconds: nowMilliseconds)
        board.set(conditions, for: name)
        let environment = board.listeners.first { $0.name == name }?.environment.rawValue ?? ""
        return ControlResponse(
            status: 200, encoding: ListenerItem(name: name, environment: environment, conditions: conditions))
    }

    /// The shape of a conditions body, for messages.
    static let listenerConditionsForm =
        #"a JSON object with handshakeDelayMs, silent and/or refuseMs, like {"handshakeDelayMs": 5000}"#

    private struct ListenerItem: Encodable {
        let name: String
        let environment: String
        let conditions: ListenerConditions
    }
}
