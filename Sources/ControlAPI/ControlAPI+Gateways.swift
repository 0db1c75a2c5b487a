import JSONInput
import JSONSupport

/// The `/v1/gateways` endpoints: create, list, read and delete isolated gateways
/// (docs/testing.md "Isolated gateways"). Every other endpoint of a gateway is served under
/// `/v1/gateways/{id}/…` by its own `ControlAPI`: the HTTP adapter splits the path with
/// `gatewayPrefix(of:)` and dispatches there.
extension ControlAPI {
    /// The gateway id and the rest of `path` when `path` is `/v1/gateways/{id}/<rest>` with a
    /// non-empty rest (`/v1/gateways/g1/v1/deliveries` → `("g1", "/v1/deliveries")`); nil otherwise,
    /// including `/v1/gateways` and `/v1/gateways/{id}` themselves.
    public static func gatewayPrefix(of path: String) -> (id: String, rest: String)? {
        let prefix = "/v1/gateways/"
        guard path.hasPrefix(prefix) else { return nil }
        let tail = path.dropFirst(prefix.count)
        guard let slash = tail.firstIndex(of: "/") else { return nil }
        let id = String(tail[..<slash])
        let rest = String(tail[slash...])
        guard !id.isEmpty, rest.contains(where: { $0 != "/" }) else { return nil }
        return (id.removingPercentEncoding ?? id, rest)
    }

    private func gatewayDirectory() throws(ControlError) -> any GatewayDirectory {
        guard let gateways else {
            throw .notFound("gateways are made and listed on the server's own control base, not under a gateway's")
        }
        return gateways
    }

    /// Body `GatewayBody`; 201 with the gateway (`GatewaySummary.json`).
    func createGateway(body: [UInt8]) throws(ControlError) -> ControlResponse {
        let directory = try gatewayDirectory()
        let request = try GatewayBody.read(body, maxRecordsRange: directory.maxRecordsRange)
        let summary = try directory.createGateway(request)
        return ControlResponse(status: 201, json: summary.json)
    }

    /// `{"gateways":[…],"count","max"}`, in creation order.
    func listGateways() throws(ControlError) -> ControlResponse {
        let directory = try gatewayDirectory()
        let all = directory.gatewaySummaries()
        return ControlResponse(
            status: 200,
            json: [
                "gateways": .array(all.map(\.json)), "count": .int(Int64(all.count)),
                "max": .int(Int64(directory.maxGateways)),
            ])
    }

    /// The gateway; 404 when unknown.
    func gateway(id: String) throws(ControlError) -> ControlResponse {
        guard let summary = try gatewayDirectory().gatewaySummary(id: id) else { throw Self.unknownGateway(id) }
        return ControlResponse(status: 200, json: summary.json)
    }

    /// `{"deleted": id}`; 404 when unknown.
    func deleteGateway(id: String) throws(ControlError) -> ControlResponse {
        guard try gatewayDirectory().deleteGateway(id: id) else { throw Self.unknownGateway(id) }
        return ControlResponse(status: 200, json: ["deleted": .string(id)])
    }

    /// A pending wait's answer (`waitResult`) given because its gateway was deleted (by `DELETE` or
    /// its idle TTL), marked so: `"gatewayDeleted":true` as the object's first member (docs/testing.md
    /// "Isolated gateways"); an answer whose body is not a JSON object is returned as it is.
    public static func gatewayDeletedAnswer(_ response: ControlResponse) -> ControlResponse {
        guard response.body.first == UInt8(ascii: "{") else { return response }
        var marked = response
        let member = Array(#""gatewayDeleted":true"#.utf8)
        let empty = response.body.dropFirst().first == UInt8(ascii: "}")
        marked.body = [UInt8(ascii: "{")] + member + (empty ? [] : [UInt8(ascii: ",")]) + response.body.dropFirst()
        return marked
    }

    /// The 404 of an unknown gateway id.
    public static func unknownGateway(_ id: String) -> ControlError {
        .notFound("no gateway \(InputError.quoted(id)) (deleted, expired, or never made; GET /v1/gateways lists them)")
    }
}
