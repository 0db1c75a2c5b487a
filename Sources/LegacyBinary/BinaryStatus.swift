/// A status code of the legacy binary provider API's error-response packet (Apple's *Binary
/// Provider API*, Table A-4; docs/legacy-binary.md §3). Sent as the packet's second byte.
public enum BinaryStatus: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// 0, no errors encountered. In Apple's table; MockAPNs never sends it (an accepted
    /// notification gets no answer at all).
    case noErrors = 0
    /// 1, processing error.
    case processingError = 1
    /// 2, missing device token.
    case missingDeviceToken = 2
    /// 3, missing topic.
    case missingTopic = 3
    /// 4, missing payload.
    case missingPayload = 4
    /// 5, invalid token size.
    case invalidTokenSize = 5
    /// 6, invalid topic size.
    case invalidTopicSize = 6
    /// 7, invalid payload size.
    case invalidPayloadSize = 7
    /// 8, invalid token.
    case invalidToken = 8
    /// 10, shutdown: the server closed the connection; the identifier is that of the last
    /// notification accepted.
    case shutdown = 10
    /// 128, protocol error: the notification could not be parsed.
    case protocolError = 128
    /// 255, none (unknown).
    case unknown = 255

    /// Apple's wording of the status, as in Table A-4.
    public var description: String {
        switch self {
        case .noErrors: "No errors encountered"
        case .processingError: "Processing error"
        case .missingDeviceToken: "Missing device token"
        case .missingTopic: "Missing topic"
        case .missingPayload: "Missing payload"
        case .invalidTokenSize: "Invalid token size"
        case .invalidTopicSize: "Invalid topic size"
        case .invalidPayloadSize: "Invalid payload size"
        case .invalidToken: "Invalid token"
        case .shutdown: "Shutdown"
        case .protocolError: "Protocol error"
        case .unknown: "None (unknown)"
        }
    }
}
