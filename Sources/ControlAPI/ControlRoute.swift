/// One endpoint the control API serves: the single list the router dispatches on, rejects
/// unknown query parameters with, and the OpenAPI document is tested against.
public struct ControlRoute: Sendable, Hashable {
    /// The HTTP method, uppercase.
    public let method: String
    /// The path template; `{name}` marks a path parameter, e.g. `/v1/devices/{token}`.
    public let path: String
    /// Every query parameter the endpoint accepts; any other name is a 400.
    public let queryParameters: [String]
    /// Which handler serves it.
    let endpoint: Endpoint

    enum Endpoint: Sendable, Hashable {
        case health, stats, metrics
        case listDeliveries, clearDeliveries, waitDeliveries, getDelivery, getDeliveryAPNsFile, getDeliveryLog
        case getDevicePreview
        case getDeliveryMetrics
        case listDevices, clearDevices, getDevice, putDevice, deleteDevice, patchDevice, interactDevice
        case getClock, putClock
        case listListeners, putListenerConditions
        case listFaults, addFaults, clearFaults, getFault, deleteFault, listFaultScenarios
        case listChannels, addChannel, deleteChannel
        case listConnections, goawayConnection, closeConnection, resetConnection
        case goawayAllConnections, closeAllConnections, resetAllConnections
        case blackholeConnection, blackholeAllConnections, drainConnection, drainAllConnections
        case listEvents, clearEvents, waitEvents
        case streamDeliveries, streamEvents
        case verify, verifyTeardown
        case createGateway, listGateways, getGateway, deleteGateway
        case listFeedback
        case consolePage, consoleAsset, send, validateProviderToken, mintProviderToken
    }

    /// The literal segments of `path`, `nil` for a parameter segment.
    var segments: [String?] {
        path.split(separator: "/").map { $0.hasPrefix("{") ? nil : String($0) }
    }
}
