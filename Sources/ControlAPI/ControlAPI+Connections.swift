import APNsCore
import Faults
import JSONSupport

/// The `/v1/connections` endpoints: list the live APNs connections and act on one now
/// (issue "Fault injection", section 2), through the injected `ConnectionDirectory`.
extension ControlAPI {
    /// `{"connections": [...]}`, ascending by id; empty when no directory was injected.
    func listConnections() -> ControlResponse {
        let list = (connections?.connections() ?? []).sorted { $0.id < $1.id }
        return ControlResponse(status: 200, encoding: ConnectionList(connections: list))
    }

    /// `POST /v1/connections/{id}/goaway`, body optional (`goawayCommand(body:)`).
    func goaway(idText: String, body: [UInt8]) throws(ControlError) -> ControlResponse {
        let id = try Self.connectionID(idText)
        return try perform(try Self.goawayCommand(body: body), onConnection: id)
    }

    /// `POST /v1/connections/{id}/close`, `/reset` and `/blackhole`: commands that take no body;
    /// a body other than whitespace is refused with 400, as an unknown key is in any other body.
    func perform(_ command: ConnectionCommand, idText: String, body: [UInt8]) throws(ControlError)
        -> ControlResponse
    {
        let id = try Self.connectionID(idText)
        try Self.refuseBody(body, of: command)
        return try perform(command, onConnection: id)
    }

    /// 400 unless `body` is empty or whitespace: `command` takes no body.
    static func refuseBody(_ body: [UInt8], of command: ConnectionCommand) throws(ControlError) {
        guard body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
            throw .badRequest("the \(name(of: command)) command takes no body (got \(body.count) bytes)")
        }
    }

    /// `POST /v1/connections/goaway`, `/close`, `/reset` (issue 13): `command` on every open
    /// connection, or on those of listener `?listener=NAME` (404 when no listener has that name).
    /// `{"action": "goaway" | "close" | "reset", "ids": [N, ...]}`: the ids it was carried out on,
    /// ascending (a connection that closed meanwhile, or cannot take a GOAWAY yet, is left out).
    func performOnEvery(_ command: ConnectionCommand, query: [String: String], body: [UInt8] = [])
        throws(ControlError) -> ControlResponse
    {
        try Self.refuseBody(body, of: command)
        let listener = query["listener"]
        if let listener, let known = listenerConditions?.listeners.map(\.name),
            !known.contains(listener), !(connections?.otherListenerNames.contains(listener) ?? false)
        {
            throw .notFound("no listener named '\(listener)'")
        }
        let chosen = (connections?.connections() ?? []).filter { listener == nil || $0.listener == listener }
        var ids: [UInt64] = []
        for entry in chosen.sorted(by: { $0.id < $1.id }) {
            if connections?.perform(command, onConnection: entry.id) == .done { ids.append(entry.id) }
        }
        return ControlResponse(
            status: 200, json: ["action": .string(Self.name(of: command)), "ids": .array(ids.map { .uint($0) })])
    }

    /// The command's name in answers.
    static func name(of command: ConnectionCommand) -> String {
        switch command {
        case .goaway: "goaway"
        case .close: "close"
        case .reset: "reset"
        case .blackhole: "blackhole"
        case .drain: "drain"
        }
    }

    /// `{"id": N, "action": "goaway" | "close" | "reset"}`; 404 when connection `id` is not open,
    /// 409 when it cannot take the command now (a GOAWAY before its HTTP/2 session started).
    private func perform(_ command: ConnectionCommand, onConnection id: UInt64) throws(ControlError) -> ControlResponse
    {
        switch connections?.perform(command, onConnection: id) ?? .notFound {
        case .done: break
        case .notFound: throw .notFound("no open connection with id \(id)")
        case .impossible(let why): throw .conflict("connection \(id): \(why)")
        }
        return ControlResponse(status: 200, json: ["action": .string(Self.name(of: command)), "id": .uint(id)])
    }

    /// The path's connection id; 400 unless it is a non-negative integer.
    static func connectionID(_ text: String) throws(ControlError) -> UInt64 {
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = UInt64(text) else {
            throw .badRequest("connection id must be a non-negative integer, got '\(text)'")
        }
        return id
    }

    /// Parses a goaway body (`GoawayBody`): empty, or a JSON object with `errorCode`, `reason`
    /// and `closeAfterMs`. 400 naming the field otherwise.
    static func goawayCommand(body: [UInt8]) throws(ControlError) -> ConnectionCommand {
        try GoawayBody.read(body).command
    }
}

/// The `GET /v1/connections` answer.
private struct ConnectionList: Encodable {
    let connections: [ConnectionListEntry]
}
