import APNsCore
import Faults
import HTTPFields
import JSONInput
import JSONSupport

/// The body of `POST /v1/connections/{id}/goaway`: empty, or a JSON object with
///
/// - `errorCode`: a name such as `"NO_ERROR"` (any case) or a number from 0 to 2^32-1;
///   absent or null: NO_ERROR;
/// - `reason`: the debug data's `{"reason": ...}`; absent: `Shutdown`; null: no debug data;
/// - `closeAfterMs`: milliseconds until the socket is closed, 0 to one day
///   (`FaultLimits.maxMilliseconds`); absent: 0 (close once written); null: kept open, new
///   streams ignored.
///
/// Other keys are refused.
struct GoawayBody: Decodable, Equatable {
    var errorCode = HTTP2ErrorCode.noError
    var reason: String? = Reason.shutdown.rawValue
    var closeAfterMilliseconds: Int64? = 0

    /// The body's shape, for messages.
    static let form = #"empty or a JSON object like {"errorCode": "NO_ERROR", "reason": "Shutdown", "closeAfterMs": 0}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case errorCode, reason
        case closeAfterMilliseconds = "closeAfterMs"
    }

    /// Every default: what an empty body asks for.
    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ message: String) -> InputError {
            InputError(at: container.codingPath + [key], message)
        }
        if let node = try container.decodeIfPresent(JSONNode.self, forKey: .errorCode) {
            do {
                errorCode = try HTTP2ErrorCode(node: node)
            } catch {
                throw refuse(.errorCode, error.message)
            }
        }
        reason = try container.goawayReason(forKey: .reason, absent: reason)
        switch try container.decodeIfPresent(JSONNode.self, forKey: .closeAfterMilliseconds) {
        case nil where container.contains(.closeAfterMilliseconds): closeAfterMilliseconds = nil
        case nil: break
        case .int(let ms)? where (0...FaultLimits.maxMilliseconds).contains(ms): closeAfterMilliseconds = ms
        case let other?:
            throw refuse(
                .closeAfterMilliseconds,
                "expected an integer of milliseconds from 0 to \(FaultLimits.maxMilliseconds), "
                    + "or null to keep the connection open, got \(other.rendered)")
        }
    }

    /// The body read from `bytes`: every default when empty (whitespace only).
    /// - Throws: a 400 naming the field (`ControlBody`).
    static func read(_ bytes: [UInt8]) throws(ControlError) -> GoawayBody {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return GoawayBody() }
        return try ControlBody.decode(GoawayBody.self, from: bytes, form: form)
    }

    /// The connection command the body asks for.
    var command: ConnectionCommand {
        .goaway(errorCode: errorCode.rawValue, reason: reason, closeAfterMilliseconds: closeAfterMilliseconds)
    }
}
