import Foundation
import JSONSupport

/// `GET/PUT /v1/clock`: the offset added to the clock of provider-token checks, so a test can
/// expire a token (`iat` older than 3600 s) without waiting an hour.
extension ControlAPI {
    /// `{"offsetSeconds": N, "now": "<ISO 8601 with the offset applied>"}`.
    func clockResponse() -> ControlResponse {
        ControlResponse(
            status: 200,
            json: [
                "offsetSeconds": .double(credentialClock.offsetSeconds),
                "now": .string(ISO8601Millis.format(epochSeconds: credentialClock.now())),
            ])
    }

    /// Body `{"offsetSeconds": N}` (seconds, may be negative, finite); answers like GET.
    func putClock(body: [UInt8]) throws(ControlError) -> ControlResponse {
        struct Body: Decodable { let offsetSeconds: Double }
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw .badRequest(
                "body must be {\"offsetSeconds\": <seconds>}, a finite number (negative moves the clock back)")
        }
        guard decoded.offsetSeconds.isFinite, abs(decoded.offsetSeconds) <= 1e10 else {
            throw .badRequest("offsetSeconds must be a finite number of seconds within ±1e10")
        }
        credentialClock.offsetSeconds = decoded.offsetSeconds
        return clockResponse()
    }
}
