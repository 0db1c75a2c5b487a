import APNsCore
import Foundation
import HTTPFields
import JSONInput
import JSONSupport
import Recording

/// `POST /v1/send` (docs/console.md): the server sends a push to one of its own APNs listeners
/// over HTTP/2, as any provider would, and answers what the listener answered and the record's
/// seq. For the web console, whose browser cannot speak HTTP/2 to a listener that trusts only
/// the repository's CA; curl users send directly.
extension ControlAPI {
    /// The `retry-after` of a 429 to a `POST /v1/send` the sender is too busy for, seconds.
    public static let sendRetryAfterSeconds = 1

    /// Body `SendBody`: a wait for the listener's answer; 429 (`retry-after`) when the sender
    /// holds as many sends as it may (docs/console.md §5), 404 for an unknown listener, 503
    /// without a sender.
    func startSend(body: [UInt8]) throws(ControlError) -> ControlResult {
        let request = try ControlBody.decode(SendBody.self, from: body, form: SendBody.form)
        guard let sender else {
            throw ControlError(status: 503, message: "this control API has no APNs listener to send to")
        }
        if let names = sender.listenerNames, let listener = request.push.listener, !names.contains(listener) {
            throw ControlError(
                status: 404,
                message: "listener: no listener named \(JSONNode.string(listener).rendered) (listeners: "
                    + names.joined(separator: ", ") + ")")
        }
        let ticket = SendTicket(afterSeq: store.lastSeq)
        sender.send(request.push) { ticket.complete($0) }
        if let answer = ticket.result, answer.busy {
            // Refused at once, nothing sent: the sender holds as many sends as it may.
            return .response(
                ControlResponse(
                    status: 429, json: ["error": .string(answer.error ?? "too many sends in flight")],
                    headers: [HeaderField(name: "retry-after", value: String(Self.sendRetryAfterSeconds))]))
        }
        // A sender that answered at once (a test's) needs no wait.
        if let response = waitResult(ticket, timedOut: false) { return .response(response) }
        return .wait(.send(ticket))
    }

    /// The answer of a pending send once the sender has completed it; a 504 when `timedOut`
    /// first; nil means keep waiting.
    ///
    /// 200 `{"status", "apnsId", "reason", "timestamp", "headers": [{"name","value"}], "body",
    /// "seq", "error"}`: `status` null with `error` when no answer came; `seq` the record of the
    /// push (found by the `apns-id` answered), null when none is found.
    public func waitResult(_ ticket: SendTicket, timedOut: Bool) -> ControlResponse? {
        guard let answer = ticket.result else {
            guard timedOut else { return nil }
            return ControlError(
                status: 504, message: "the listener did not answer within \(SendTicket.timeoutMilliseconds) ms"
            ).response
        }
        let apnsID = answer.headers.first { $0.name == "apns-id" }?.value
        var seq: JSONNode = .null
        if let apnsID {
            var filter = DeliveryFilter(apnsID: apnsID)
            filter.after = ticket.afterSeq
            if let found = store.compactQuery(filter).elements.last?.seq { seq = .uint(found) }
        }
        var reason: JSONNode = .null
        var timestamp: JSONNode = .null
        if let parsed = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] {
            if let text = parsed["reason"] as? String { reason = .string(text) }
            if let number = parsed["timestamp"] as? NSNumber { timestamp = .int(number.int64Value) }
        }
        return ControlResponse(
            status: 200,
            json: [
                "status": answer.status.map { .int(Int64($0)) } ?? .null,
                "apnsId": apnsID.map { .string($0) } ?? .null,
                "reason": reason,
                "timestamp": timestamp,
                "headers": .array(answer.headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
                "body": .string(String(decoding: answer.body, as: UTF8.self)),
                "seq": seq,
                "error": answer.error.map { .string($0) } ?? .null,
            ])
    }
}
