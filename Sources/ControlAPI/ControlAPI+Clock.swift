import Foundation
import JSONInput
import JSONSupport

/// `GET/PUT /v1/clock`: the offset added to the clock of provider-token checks, so a test can
/// expire a token (`iat` older than 3600 s) without waiting an hour. Virtual devices' lifecycles
/// run on the same clock: a PUT that moves it forward runs what fell due meanwhile (an expiration,
/// a low-power burst, the background budget freeing), each at the time it fell due.
extension ControlAPI {
    /// `{"offsetSeconds": N, "now": "<ISO 8601 with the offset applied>"}`.
    func clockResponse() -> ControlResponse {
        ControlResponse(
            status: 200,
            json: [
                "offsetSeconds": .double(credentialClock.offsetSeconds),
                "now": .string(ISO8601Timestamp.format(epochSeconds: credentialClock.now())),
            ])
    }

    /// Body `ClockBody` (`{"offsetSeconds": N}`, seconds, may be negative, finite, within
    /// ±1e10; no other key); answers like GET. 400 naming the field otherwise.
    func putClock(body: [UInt8]) throws(ControlError) -> ControlResponse {
        let decoded = try ControlBody.decode(ClockBody.self, from: body, form: ClockBody.form)
        // The clock stays within the dates every timestamp can be written as (1970 to 9999).
        let moved = Date().timeIntervalSince1970 + decoded.offsetSeconds
        guard (0...253_402_300_799).contains(moved) else {
            throw .badRequest(
                "offsetSeconds: \(decoded.offsetSeconds) would put the clock "
                    + (moved < 0 ? "before 1970" : "after 9999") + "; the clock must stay within 1970 to 9999")
        }
        credentialClock.offsetSeconds = decoded.offsetSeconds
        // Virtual devices live on this clock: moving it forward runs what fell due (docs/device-model.md §7).
        devices.catchUp(force: true)
        return clockResponse()
    }
}
