import JSONSupport

/// The isolated gateways behind `/v1/gateways` (docs/testing.md "Isolated gateways"); the server
/// assembly implements it. Calls arrive on the control thread.
public protocol GatewayDirectory: AnyObject, Sendable {
    /// Makes a gateway as `body` asks. Throws 400 (a setting out of the server's bounds, a device
    /// or fault rule refused: the message names it), 409 (the port is in use, or a live gateway
    /// has the `name` asked for) or 429 (the most gateways are held).
    func createGateway(_ body: GatewayBody) throws(ControlError) -> GatewaySummary
    /// Every gateway, in creation order.
    func gatewaySummaries() -> [GatewaySummary]
    /// The most gateways held at once (`--max-gateways`).
    var maxGateways: Int { get }
    /// The `maxRecords` a gateway may ask for (1 to the server's bound); a body outside it is a
    /// 400 that states it.
    var maxRecordsRange: ClosedRange<Int> { get }
    /// One gateway, or nil when unknown; asking touches it (its idle TTL starts again, so
    /// `GET /v1/gateways/{id}` is a keep-alive) and `expiresAt` is as of then.
    func gatewaySummary(id: String) -> GatewaySummary?
    /// Deletes a gateway (its listener, connections, pending waits); false when unknown.
    func deleteGateway(id: String) -> Bool
    /// The control API of the gateway `id`, for a request under its `controlBase`, which touches
    /// it (its idle TTL starts again); nil when unknown.
    func gatewayAPI(id: String) -> ControlAPI?
}

extension GatewayDirectory {
    /// Any positive `Int32`, for a directory that states no bound of its own.
    public var maxRecordsRange: ClosedRange<Int> { GatewayBody.defaultMaxRecordsRange }
}
