import APNsCore

/// The static conditions of a match (all but `nth`, `everyKth` and `probability`, which need
/// the rule's counters and generator; see `FaultRuleState`).
extension FaultMatch {
    /// Whether every static condition holds for `context`. Cheap comparisons come first; the
    /// payload, parsed on first need, last.
    func admits(_ context: FaultContext, payload: inout FaultPayload) -> Bool {
        // A rule without `kind` is a device-push rule: channel and broadcast requests pass it by.
        if context.kind != (kind ?? .push) { return false }
        // A rule without `protocol` is an HTTP/2 rule: binary notifications pass it by.
        if context.transport != (transport ?? .http2) { return false }
        if let channelID, context.channelID != channelID { return false }
        if let connection, context.connectionID != connection { return false }
        if let nthConnection, context.connectionOrdinal != nthConnection { return false }
        if let connectionShare, !Self.takes(connectionShare, ordinal: context.connectionOrdinal, seed: seed ?? 0) {
            return false
        }
        if let environment, context.environment != environment { return false }
        if let priority, context.priority != priority { return false }
        if let pushType, context.pushType != pushType && context.pushTypeSent != pushType.rawValue { return false }
        if let from, context.nowMilliseconds < from.epochMilliseconds { return false }
        if let until, context.nowMilliseconds >= until.epochMilliseconds { return false }
        if let listener, context.listener != listener { return false }
        if let topic, context.topic != topic { return false }
        if let keyID, context.keyID != keyID { return false }
        if let teamID, context.teamID != teamID { return false }
        if token != nil || tokenPrefix != nil {
            // ValidationResult tokens are lowercase already; lowercase only when they are not.
            guard var sent = context.token else { return false }
            if sent.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { sent = sent.lowercased() }
            if let token, sent != token { return false }
            if let tokenPrefix, !sent.hasPrefix(tokenPrefix) { return false }
        }
        if let headers {
            for (name, condition) in headers where !condition.holds(for: name, in: context.headers) { return false }
        }
        if let conditions = self.payload {
            for condition in conditions where !payload.satisfies(condition) { return false }
        }
        return true
    }

    /// Whether the connection of rank `ordinal` is in a `connectionShare` of `share`: one
    /// SplitMix64 output of a state made from the seed and the rank (a stream apart from the
    /// `probability` draws of the same seed), so each connection is drawn on its own.
    static func takes(_ share: Double, ordinal: UInt64, seed: UInt64) -> Bool {
        var random = SplitMix64(seed: (seed ^ 0x5DEE_CE66_D1CE_4E5B) &+ ordinal &* 0xD1B5_4A32_D192_ED03)
        return random.nextUnit() < share
    }
}
