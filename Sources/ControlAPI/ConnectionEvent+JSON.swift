import Faults
import HTTPFields
import JSONInput
import JSONSupport
import Recording

extension ConnectionEvent: Encodable {
    private enum JSONKey: String, CodingKey {
        case action, at, description, details, environment, kind, listener, origin, peer, seq
        case connectionID = "connectionId"
        case ruleID = "ruleId"
    }

    private enum DetailKey: String, CodingKey {
        case ageMs, alpn, closeAfterMs, debugData, drain, durationMs, errorCode, maxConcurrentStreams
        case lastStreamID = "lastStreamId"
        case previousMaxConcurrentStreams, reason, requests, tls, when, withheldBytes
        case certificateSubject, identifier, notifications, status, statusName, tokens, topic, tuples
        case transport = "protocol"
    }

    /// The event as the control API shows it; every key is always present (`null` when absent):
    ///
    /// - `seq`, `at` (ISO 8601 UTC with milliseconds), `kind`, `listener`, `environment`,
    ///   `connectionId` (null for `refused`), `peer`
    /// - `origin` (`fault`, `command`, `listenerCondition`, `idleTimeout`, `streamProfile`,
    ///   `certificate`, `shutdown`, `lifecycle`), `ruleId` and `action` (the rule's action type;
    ///   both null unless `origin` is `fault`), `description` (one line)
    /// - `details`, an object whose keys depend on `kind`, each always present for its kind:
    ///   `opened` {`alpn`, `tls`, `maxConcurrentStreams`}; `goaway` {`errorCode` (RFC 9113 name,
    ///   or the number when unnamed), `lastStreamId`, `debugData` (UTF-8 text, "" for none),
    ///   `reason` (the debug data's `{"reason"}`, else null), `closeAfterMs` (null: kept open)};
    ///   `close` and `reset` {`when`: `before-response`, `after-response` or null};
    ///   `settings` {`maxConcurrentStreams`, `previousMaxConcurrentStreams`};
    ///   `windowStallStart` and `handshakeDelay` {`durationMs`}; `windowStallEnd`
    ///   {`durationMs`, `withheldBytes`}; `closed` {`requests`, `ageMs`}; `silentAccept`,
    ///   `refused` and `blackhole` {}. Legacy binary and feedback connections
    ///   (docs/legacy-binary.md §8): `opened` {`protocol` (`binary`, `feedback`), `tls`,
    ///   `certificateSubject`, `topic`}; `closed` {`protocol`, `reason`, `notifications`, `ageMs`};
    ///   `errorPacket` {`status`, `statusName`, `identifier`}; `feedbackSent` {`tuples`, `tokens`}.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(origin.ruleAction, forKey: .action)
        try container.encode(ISO8601Timestamp.format(epochMilliseconds: epochMilliseconds), forKey: .at)
        try container.encode(connectionID, forKey: .connectionID)
        try container.encode(description, forKey: .description)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(listener, forKey: .listener)
        try container.encode(origin.name, forKey: .origin)
        try container.encode(peer, forKey: .peer)
        try container.encode(origin.ruleID, forKey: .ruleID)
        try container.encode(seq, forKey: .seq)
        var details = container.nestedContainer(keyedBy: DetailKey.self, forKey: .details)
        switch action {
        case .opened(let alpn, let tls, let limit):
            try details.encode(alpn, forKey: .alpn)
            try details.encode(tls, forKey: .tls)
            try details.encode(limit, forKey: .maxConcurrentStreams)
        case .goaway(let code, let last, let data, let closeAfter):
            try details.encode(HTTP2ErrorCode(rawValue: code), forKey: .errorCode)
            try details.encode(last, forKey: .lastStreamID)
            try details.encode(String(decoding: data, as: UTF8.self), forKey: .debugData)
            try details.encode(action.goawayReason, forKey: .reason)
            try details.encode(closeAfter, forKey: .closeAfterMs)
        case .drain(let code, let last, let data, let maximum):
            try details.encode(HTTP2ErrorCode(rawValue: code), forKey: .errorCode)
            try details.encode(last, forKey: .lastStreamID)
            try details.encode(String(decoding: data, as: UTF8.self), forKey: .debugData)
            try details.encode(action.goawayReason, forKey: .reason)
            try details.encode(maximum, forKey: .closeAfterMs)
            try details.encode(true, forKey: .drain)
        case .close(let moment), .reset(let moment):
            try details.encode(moment?.rawValue, forKey: .when)
        case .settings(let limit, let previous):
            try details.encode(limit, forKey: .maxConcurrentStreams)
            try details.encode(previous, forKey: .previousMaxConcurrentStreams)
        case .windowStallStart(let ms), .handshakeDelay(let ms):
            try details.encode(ms, forKey: .durationMs)
        case .windowStallEnd(let ms, let bytes):
            try details.encode(ms, forKey: .durationMs)
            try details.encode(bytes, forKey: .withheldBytes)
        case .closed(let requests, let age):
            try details.encode(requests, forKey: .requests)
            try details.encode(age, forKey: .ageMs)
        case .silentAccept, .refused, .blackhole:
            break
        case .legacyOpened(let transport, let tls, let subject, let topic):
            try details.encode(transport, forKey: .transport)
            try details.encode(tls, forKey: .tls)
            try details.encode(subject, forKey: .certificateSubject)
            try details.encode(topic, forKey: .topic)
        case .legacyClosed(let transport, let reason, let count, let age):
            try details.encode(transport, forKey: .transport)
            try details.encode(reason, forKey: .reason)
            try details.encode(count, forKey: .notifications)
            try details.encode(age, forKey: .ageMs)
        case .errorPacket(let status, let name, let identifier):
            try details.encode(status, forKey: .status)
            try details.encode(name, forKey: .statusName)
            try details.encode(identifier, forKey: .identifier)
        case .feedbackSent(let tuples, let tokens):
            try details.encode(tuples, forKey: .tuples)
            try details.encode(tokens, forKey: .tokens)
        }
    }
}
