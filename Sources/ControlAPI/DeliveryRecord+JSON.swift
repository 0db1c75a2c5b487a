import APNsCore
import Foundation
import JSONInput
import JSONSupport

extension DeliveryRecord: Encodable {
    private enum JSONKey: String, CodingKey {
        case deviceToken, environment, expiration, fanOut, fault, headers, identity
        case apnsID = "apnsId"
        case channelID = "channelId"
        case kind
        case collapseID = "collapseId"
        case connectionID = "connectionId"
        case inferredPushType, lints, listener, method, path, payload, payloadBytes, payloadError
        case payloadText, priority, providerToken, pushType, reason, receivedAt, seq, status
        case transportProtocol = "protocol"
        case timestamp, topic, unanswered
        case streamID = "streamId"
        case uniqueID = "uniqueId"
    }

    private enum HeaderKey: String, CodingKey {
        case name, value
    }

    /// The record as the control API shows it; every key is always present (`null` for absent
    /// values), so clients see one stable shape:
    ///
    /// - `kind`: `push`, `channel` or `broadcast` (`RequestKind`, by the path); `channelId`: the
    ///   channel a channel or broadcast request named (docs/broadcast.md §4), else null (the
    ///   control API joins the channel an answered create made, `ChannelStore.noteCreated`); on
    ///   those records `apnsId` is the `apns-request-id` answered; `fanOut`: on an accepted
    ///   broadcast (200), how many subscribed virtual devices it reached (docs/broadcast.md §5;
    ///   0 here, the control API joins the count and the devices' copies, `fanOutDeliveries`, when
    ///   it reached any), else null
    /// - `protocol`: `http2`, or `binary` for a legacy binary gateway notification
    ///   (docs/legacy-binary.md §8)
    /// - `seq` (integer), `receivedAt` (ISO 8601 UTC with milliseconds, `2026-11-30T08:49:03.123Z`),
    ///   `environment`, `listener`, `connectionId`, `streamId`, `method`, `path`
    /// - `deviceToken`, `topic`, `pushType` (`apns-push-type` as sent), `inferredPushType` (the
    ///   one the rules used), `priority`, `expiration` (epoch seconds), `collapseId`, `apnsId`,
    ///   `uniqueId`
    /// - `headers`: `[{"name", "value"}]` in arrival order
    /// - `providerToken`: for `authorization: bearer <header>.<claims>`, `{"header": {…},
    ///   "claims": {…}}` base64url-decoded JSON (a part that does not decode stays its raw text);
    ///   else null
    /// - `payload` (the body parsed, when it is JSON), `payloadText` (the body as UTF-8 text when
    ///   it is not JSON; invalid bytes become U+FFFD), `payloadBytes`, `payloadError`
    /// - `status`, `reason`, `timestamp` (410: milliseconds since the epoch), `lints` (strings)
    /// - `unanswered`: null when the stream was answered (or is still open); else why it ended
    ///   without response HEADERS (`UnansweredCause`: `connection-closed`, `connection-reset`,
    ///   `connection-closed-by-client`, `above-last-stream-id`, `stream-reset-by-client`,
    ///   `stream-reset-by-server`), and `status` is null; `status` null with `unanswered` null
    ///   is pending (the stream open, its answer held by a `delay` or never to come)
    ///
    /// The payload is parsed here, at query time, to keep the append path cheap, by
    /// `JSONSerialization` as validation parses it (see `ParsedJSONEncoding` for why not
    /// `JSONNode`). Everything is written through this one encoder's nested containers, and
    /// absent values with `encodeNil`: encoding an `Optional` or a nested `Encodable` goes
    /// through `JSONEncoder`'s generic path and a new encoder object per value, which made up
    /// most of the time of a large page.
    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, withParts: true, payloadIsJSON: nil)
    }

    /// The record; with `withParts` false, `headers` and `identity` are written as `null` for
    /// `DeliveryListJSON` to replace with their own JSON (`"headers":null,"identity":null`, the
    /// two keys adjacent in sorted order), and so is `payload` when `payloadIsJSON` says the
    /// caller has parsed it (`"payload":null,"payloadBytes":`). With `payloadIsJSON` nil the
    /// payload is parsed here.
    func encode(to encoder: any Encoder, withParts: Bool, payloadIsJSON: Bool?) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(apnsID, forKey: .apnsID)
        try container.encodeIfPresentElseNil(channelID, forKey: .channelID)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encodeIfPresentElseNil(verdict.collapseID, forKey: .collapseID)
        try container.encode(connectionID, forKey: .connectionID)
        try container.encodeIfPresentElseNil(verdict.deviceToken, forKey: .deviceToken)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encodeIfPresentElseNil(verdict.expiration, forKey: .expiration)
        try container.encodeIfPresentElseNil(kind == .broadcast && status == 200 ? 0 : nil, forKey: .fanOut)
        if let fault {
            var nested = container.nestedContainer(keyedBy: FaultKey.self, forKey: .fault)
            try nested.encode(fault.ruleID, forKey: .ruleID)
            try nested.encode(fault.action, forKey: .action)
            try nested.encode(fault.description, forKey: .description)
        } else {
            try container.encodeNil(forKey: .fault)
        }
        if withParts {
            var headerList = container.nestedUnkeyedContainer(forKey: .headers)
            try Self.encode(headers, into: &headerList)
            if let identity {
                var nested = container.nestedContainer(keyedBy: IdentityKey.self, forKey: .identity)
                try Self.encode(identity, into: &nested)
            } else {
                try container.encodeNil(forKey: .identity)
            }
        } else {
            try container.encodeNil(forKey: .headers)
            try container.encodeNil(forKey: .identity)
        }
        try container.encodeIfPresentElseNil(verdict.pushType?.rawValue, forKey: .inferredPushType)
        var lintList = container.nestedUnkeyedContainer(forKey: .lints)
        for lint in verdict.lints { try lintList.encode(lint) }
        try container.encode(listener, forKey: .listener)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        if let payloadIsJSON {
            try container.encodeNil(forKey: .payload)
            try container.encodeIfPresentElseNil(
                payloadIsJSON || payload.isEmpty ? nil : String(decoding: payload, as: UTF8.self),
                forKey: .payloadText)
        } else if let parsed = ParsedJSONEncoding.parse(payload) {
            try ParsedJSONEncoding.encode(parsed, forKey: .payload, in: &container)
            try container.encodeNil(forKey: .payloadText)
        } else {
            try container.encodeNil(forKey: .payload)
            try container.encodeIfPresentElseNil(
                payload.isEmpty ? nil : String(decoding: payload, as: UTF8.self),
                forKey: .payloadText)
        }
        try container.encode(payloadBytes, forKey: .payloadBytes)
        try container.encodeIfPresentElseNil(verdict.payloadError, forKey: .payloadError)
        try container.encodeIfPresentElseNil(verdict.priority, forKey: .priority)
        try container.encode(transportProtocol.rawValue, forKey: .transportProtocol)
        try encodeProviderToken(in: &container)
        try container.encodeIfPresentElseNil(verdict.pushTypeSent, forKey: .pushType)
        try container.encodeIfPresentElseNil(reason?.rawValue, forKey: .reason)
        try container.encode(ISO8601Timestamp.format(epochSeconds: receivedAt), forKey: .receivedAt)
        try container.encode(seq, forKey: .seq)
        try container.encodeIfPresentElseNil(status == 0 ? nil : status, forKey: .status)
        try container.encode(streamID, forKey: .streamID)
        try container.encodeIfPresentElseNil(verdict.timestamp, forKey: .timestamp)
        try container.encodeIfPresentElseNil(verdict.topic, forKey: .topic)
        try container.encodeIfPresentElseNil(unanswered?.rawValue, forKey: .unanswered)
        try container.encodeIfPresentElseNil(uniqueID, forKey: .uniqueID)
    }

    private enum FaultKey: String, CodingKey {
        case action, description
        case ruleID = "ruleId"
    }

    fileprivate enum IdentityKey: String, CodingKey {
        case kind, issuedAt, subject, topics, verdict
        case keyID = "keyId"
        case teamID = "teamId"
    }

    /// `headers`: `[{"name","value"}]` in arrival order.
    fileprivate static func encode(_ headers: [HeaderField], into list: inout any UnkeyedEncodingContainer) throws {
        for header in headers {
            var pair = list.nestedContainer(keyedBy: HeaderKey.self)
            try pair.encode(header.name, forKey: .name)
            try pair.encode(header.value, forKey: .value)
        }
    }

    /// `identity`: every key present, `null` when absent.
    fileprivate static func encode(
        _ identity: CredentialIdentity, into nested: inout KeyedEncodingContainer<IdentityKey>
    ) throws {
        try nested.encode(identity.kind, forKey: .kind)
        try nested.encodeIfPresentElseNil(identity.keyID, forKey: .keyID)
        try nested.encodeIfPresentElseNil(identity.teamID, forKey: .teamID)
        try nested.encodeIfPresentElseNil(identity.issuedAt, forKey: .issuedAt)
        try nested.encodeIfPresentElseNil(identity.subject, forKey: .subject)
        if let topics = identity.topics {
            var list = nested.nestedUnkeyedContainer(forKey: .topics)
            for topic in topics { try list.encode(topic) }
        } else {
            try nested.encodeNil(forKey: .topics)
        }
        try nested.encode(identity.verdict, forKey: .verdict)
    }

    private enum ProviderTokenKey: String, CodingKey {
        case claims, header
    }

    /// `providerToken`: the decoded `authorization: bearer <header>.<claims>[.<signature>]`,
    /// or `null` when the request had no bearer authorization. The header is taken apart on
    /// bytes, cheaper than Foundation's string trimming.
    private func encodeProviderToken(in container: inout KeyedEncodingContainer<JSONKey>) throws {
        guard let header = headers.first(where: { $0.name == "authorization" }) else {
            return try container.encodeNil(forKey: .providerToken)
        }
        var bytes = Array(header.value.utf8)[...]
        while bytes.first == 0x20 || bytes.first == 0x09 { bytes = bytes.dropFirst() }
        while bytes.last == 0x20 || bytes.last == 0x09 { bytes = bytes.dropLast() }
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 })
        else {
            return try container.encodeNil(forKey: .providerToken)
        }
        var jwt = bytes.dropFirst(scheme.count)
        while jwt.first == 0x20 { jwt = jwt.dropFirst() }
        let parts = jwt.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        var token = container.nestedContainer(keyedBy: ProviderTokenKey.self, forKey: .providerToken)
        // Each part: its JSON object when it decodes to one, else its raw text; null when missing.
        for (index, key) in [(1, ProviderTokenKey.claims), (0, .header)] {
            guard index < parts.count else {
                try token.encodeNil(forKey: key)
                continue
            }
            if let data = Self.base64URLDecode(parts[index]), let json = ParsedJSONEncoding.parse(data),
                ParsedJSONEncoding.isObject(json)
            {
                try ParsedJSONEncoding.encode(json, forKey: key, in: &token)
            } else {
                try token.encode(String(decoding: parts[index], as: UTF8.self), forKey: key)
            }
        }
    }

    /// base64url (RFC 4648 section 5), padding optional, through Foundation's base64 once `-_`
    /// are mapped to `+/`; `nil` for `+`, `/` or anything else base64 does not allow.
    private static func base64URLDecode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: base64.append(byte)
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64)).map { Array($0) }
    }
}

private extension KeyedEncodingContainer {
    /// `value`, or `null` when absent: JSONEncoder's `encode` of an `Optional` takes a generic
    /// path several times slower than these concrete calls.
    mutating func encodeIfPresentElseNil(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeIfPresentElseNil(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeIfPresentElseNil(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeIfPresentElseNil(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}

/// A record's JSON with `headers` and `identity` as `null`, and `payload` too when it is JSON
/// (see `DeliveryListJSON`).
struct DeliveryRecordWithoutParts: Encodable {
    let record: DeliveryRecord
    /// Whether the payload parses as JSON, as `DeliveryPayloadJSON` found.
    let payloadIsJSON: Bool

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder, withParts: false, payloadIsJSON: payloadIsJSON)
    }
}

/// A record's `headers` value on its own, written exactly as inside the record.
struct DeliveryHeadersJSON: Encodable {
    let headers: [HeaderField]

    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try DeliveryRecord.encode(headers, into: &list)
    }
}

/// A record's `identity` value on its own, written exactly as inside the record.
struct DeliveryIdentityJSON: Encodable {
    let identity: CredentialIdentity?

    func encode(to encoder: any Encoder) throws {
        guard let identity else {
            var single = encoder.singleValueContainer()
            return try single.encodeNil()
        }
        var nested = encoder.container(keyedBy: DeliveryRecord.IdentityKey.self)
        try DeliveryRecord.encode(identity, into: &nested)
    }
}

/// A record's `payload` value on its own, when the body is JSON, written exactly as inside the
/// record.
struct DeliveryPayloadJSON: Encodable {
    /// What `ParsedJSONEncoding.parse` made of the body.
    let parsed: Any

    func encode(to encoder: any Encoder) throws {
        try ParsedJSONEncoding.encode(parsed, to: encoder)
    }
}
