import Foundation

extension DeliveryRecord: Encodable {
    private enum JSONKey: String, CodingKey {
        case apnsId, collapseId, connectionId, deviceToken, environment, expiration, fault, headers, identity
        case inferredPushType, lints, listener, method, path, payload, payloadBytes, payloadError
        case payloadText, priority, providerToken, pushType, reason, receivedAt, seq, status
        case streamId, timestamp, topic, uniqueId
    }

    private enum HeaderKey: String, CodingKey {
        case name, value
    }

    /// The record as the control API shows it; every key is always present (`null` for absent
    /// values), so clients see one stable shape:
    ///
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
    ///
    /// The payload is parsed here, at query time, to keep the append path cheap. Encoded field by
    /// field rather than through a `ControlJSON` tree: Foundation's encoder is about a quarter
    /// faster on concrete types.
    public func encode(to encoder: any Encoder) throws {
        var payloadValue = ControlJSON.null
        var payloadText: String?
        if !payload.isEmpty {
            if let parsed = try? ControlJSON(decoding: payload) {
                payloadValue = parsed
            } else {
                payloadText = String(decoding: payload, as: UTF8.self)
            }
        }
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(apnsID, forKey: .apnsId)
        try container.encode(verdict.collapseID, forKey: .collapseId)
        try container.encode(connectionID, forKey: .connectionId)
        try container.encode(verdict.deviceToken, forKey: .deviceToken)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encode(verdict.expiration, forKey: .expiration)
        var headerList = container.nestedUnkeyedContainer(forKey: .headers)
        for header in headers {
            var pair = headerList.nestedContainer(keyedBy: HeaderKey.self)
            try pair.encode(header.name, forKey: .name)
            try pair.encode(header.value, forKey: .value)
        }
        try container.encode(identity, forKey: .identity)
        try container.encode(fault, forKey: .fault)
        try container.encode(verdict.pushType?.rawValue, forKey: .inferredPushType)
        try container.encode(verdict.lints, forKey: .lints)
        try container.encode(listener, forKey: .listener)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(payloadValue, forKey: .payload)
        try container.encode(payloadBytes, forKey: .payloadBytes)
        try container.encode(verdict.payloadError, forKey: .payloadError)
        try container.encode(payloadText, forKey: .payloadText)
        try container.encode(verdict.priority, forKey: .priority)
        try container.encode(providerTokenJSON() ?? .null, forKey: .providerToken)
        try container.encode(verdict.pushTypeSent, forKey: .pushType)
        try container.encode(reason?.rawValue, forKey: .reason)
        try container.encode(ISO8601Millis.format(epochSeconds: receivedAt), forKey: .receivedAt)
        try container.encode(seq, forKey: .seq)
        try container.encode(status == 0 ? nil : status, forKey: .status)
        try container.encode(streamID, forKey: .streamId)
        try container.encode(verdict.timestamp, forKey: .timestamp)
        try container.encode(verdict.topic, forKey: .topic)
        try container.encode(uniqueID, forKey: .uniqueId)
    }

    /// The decoded `authorization: bearer <header>.<claims>[.<signature>]`, or `nil` when the
    /// request had no bearer authorization. The header is taken apart on bytes, cheaper than
    /// Foundation's string trimming.
    private func providerTokenJSON() -> ControlJSON? {
        guard let header = headers.first(where: { $0.name == "authorization" }) else { return nil }
        var bytes = Array(header.value.utf8)[...]
        while bytes.first == 0x20 || bytes.first == 0x09 { bytes = bytes.dropFirst() }
        while bytes.last == 0x20 || bytes.last == 0x09 { bytes = bytes.dropLast() }
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count,
              zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        var jwt = bytes.dropFirst(scheme.count)
        while jwt.first == 0x20 { jwt = jwt.dropFirst() }
        let parts = jwt.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        func decode(_ index: Int) -> ControlJSON {
            guard index < parts.count else { return .null }
            guard let data = Self.base64URLDecode(parts[index]), let json = try? ControlJSON(decoding: data),
                  case .object = json else { return .string(String(decoding: parts[index], as: UTF8.self)) }
            return json
        }
        return ["claims": decode(1), "header": decode(0)]
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
