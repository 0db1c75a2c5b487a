import APNsCore
import Faults
import JSONInput
import JSONSupport

/// The body of `POST /v1/connections/{id}/drain` (and `/v1/connections/drain`): empty, or a JSON
/// object with
///
/// - `reason`: the GOAWAY's debug data `{"reason": ...}`; absent: `Shutdown`; null: no debug data;
/// - `maxMs`: the cap, in milliseconds from 1 to one day (`FaultLimits.maxMilliseconds`): the
///   connection is closed then even if streams are still in flight; absent: 5000.
///
/// Other keys are refused. The GOAWAY is NO_ERROR with the highest stream processed (issue 13).
struct DrainBody: Decodable, Equatable {
    var reason: String? = Reason.shutdown.rawValue
    var maxMilliseconds: Int64 = DrainBody.defaultMaxMilliseconds

    /// The cap when the body names none (milliseconds).
    static let defaultMaxMilliseconds: Int64 = 5000

    /// The body's shape, for messages.
    static let form = #"empty or a JSON object like {"reason": "Shutdown", "maxMs": 5000}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case reason
        case maxMilliseconds = "maxMs"
    }

    /// Every default: what an empty body asks for.
    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ message: String) -> InputError {
            InputError(at: container.codingPath + [key], message)
        }
        reason = try container.goawayReason(forKey: .reason, absent: reason)
        switch try container.decodeIfPresent(JSONNode.self, forKey: .maxMilliseconds) {
        case nil: break
        case .int(let ms)? where (1...FaultLimits.maxMilliseconds).contains(ms): maxMilliseconds = ms
        case let other?:
            throw refuse(
                .maxMilliseconds,
                "expected an integer of milliseconds from 1 to \(FaultLimits.maxMilliseconds), got \(other.rendered)")
        }
    }

    /// The body read from `bytes`: every default when empty (whitespace only).
    /// - Throws: a 400 naming the field (`ControlBody`).
    static func read(_ bytes: [UInt8]) throws(ControlError) -> DrainBody {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return DrainBody() }
        return try ControlBody.decode(DrainBody.self, from: bytes, form: form)
    }

    /// The connection command the body asks for.
    var command: ConnectionCommand { .drain(reason: reason, maxMilliseconds: maxMilliseconds) }
}
