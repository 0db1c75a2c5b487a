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

    /// `POST /v1/connections/{id}/close` and `/reset`.
    func perform(_ command: ConnectionCommand, idText: String) throws(ControlError) -> ControlResponse {
        try perform(command, onConnection: try Self.connectionID(idText))
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
        let action: String
        switch command {
        case .goaway: action = "goaway"
        case .close: action = "close"
        case .reset: action = "reset"
        }
        return ControlResponse(status: 200, json: ["action": .string(action), "id": .uint(id)])
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
