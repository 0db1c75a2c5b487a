import APNsCore
import Faults
import Foundation
import JSONInput
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

    /// The fields a goaway body may carry.
    static let goawayFields = ["errorCode", "reason", "closeAfterMs"]

    /// Parses a goaway body: empty, or a JSON object with `errorCode` (a name such as
    /// `"NO_ERROR"`, any case, or a number; default NO_ERROR), `reason` (the debug data's
    /// `{"reason": ...}`; default `Shutdown`; null sends no debug data) and `closeAfterMs`
    /// (milliseconds until the socket is closed, 0 to one day; default 0, close once written;
    /// null keeps it open, new streams ignored). 400 naming the field otherwise.
    static func goawayCommand(body: [UInt8]) throws(ControlError) -> ConnectionCommand {
        var errorCode = FaultErrorCode.noError
        var reason: String? = Reason.shutdown.rawValue
        var closeAfter: Int64? = 0
        // An empty body, the usual case, takes every default.
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            return .goaway(errorCode: errorCode.rawValue, reason: reason, closeAfterMilliseconds: closeAfter)
        }
        guard case .object(let object)? = try? ControlJSON(decoding: body) else {
            throw .badRequest(
                #"body must be empty or a JSON object like {"errorCode": "NO_ERROR", "reason": "Shutdown", "closeAfterMs": 0}"#
            )
        }
        let unknown = object.keys.filter { !goawayFields.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw .badRequest(
                "unknown field(s) in body: \(unknown.joined(separator: ", ")) "
                    + "(allowed: \(goawayFields.joined(separator: ", ")))")
        }
        switch object["errorCode"] {
        case nil, .null?: break
        case .string(let name)?:
            guard let code = FaultErrorCode(name: name) else {
                let near =
                    ClosestMatch.find(name, among: FaultErrorCode.names).map {
                        " (did you mean \(JSONValue.quoted($0))?)"
                    } ?? ""
                throw .badRequest(
                    "errorCode: unknown error code \(JSONValue.quoted(name))\(near); expected \(FaultErrorCode.expected)"
                )
            }
            errorCode = code
        case .int(let number)? where (0...Int64(UInt32.max)).contains(number):
            errorCode = FaultErrorCode(rawValue: UInt32(number))
        case let other?:
            throw .badRequest("errorCode: expected \(FaultErrorCode.expected), got \(FaultRuleError.render(other))")
        }
        switch object["reason"] {
        case nil: break
        case .null?: reason = nil
        case .string(let text)?: reason = text
        case let other?: throw .badRequest("reason: expected a string or null, got \(FaultRuleError.render(other))")
        }
        switch object["closeAfterMs"] {
        case nil: break
        case .null?: closeAfter = nil
        case .int(let ms)? where (0...FaultLimits.maxMilliseconds).contains(ms): closeAfter = ms
        case let other?:
            throw .badRequest(
                "closeAfterMs: expected an integer of milliseconds from 0 to \(FaultLimits.maxMilliseconds), "
                    + "or null to keep the connection open, got \(FaultRuleError.render(other))")
        }
        return .goaway(errorCode: errorCode.rawValue, reason: reason, closeAfterMilliseconds: closeAfter)
    }
}

/// The `GET /v1/connections` answer.
private struct ConnectionList: Encodable {
    let connections: [ConnectionSummary]
}
