extension DeliveryRecord {
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
    /// The payload is parsed here, at query time, to keep the append path cheap.
    public func jsonValue() -> ControlJSON {
        var payloadValue = ControlJSON.null
        var payloadText = ControlJSON.null
        if !payload.isEmpty {
            if let parsed = ControlJSON.parse(payload) {
                payloadValue = parsed
            } else {
                payloadText = .string(String(decoding: payload, as: UTF8.self))
            }
        }
        return [
            "apnsId": .string(apnsID),
            "collapseId": .string(verdict.collapseID),
            "connectionId": .uint(connectionID),
            "deviceToken": .string(verdict.deviceToken),
            "environment": .string(environment.rawValue),
            "expiration": .int(verdict.expiration),
            "headers": .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] as ControlJSON }),
            "inferredPushType": .string(verdict.pushType?.rawValue),
            "lints": .array(verdict.lints.map(ControlJSON.string)),
            "listener": .string(listener),
            "method": .string(method),
            "path": .string(path),
            "payload": payloadValue,
            "payloadBytes": .int(Int64(payload.count)),
            "payloadError": .string(verdict.payloadError),
            "payloadText": payloadText,
            "priority": .int(verdict.priority.map(Int64.init)),
            "providerToken": providerTokenJSON() ?? .null,
            "pushType": .string(verdict.pushTypeSent),
            "reason": .string(reason?.rawValue),
            "receivedAt": .string(ISO8601Millis.format(epochSeconds: receivedAt)),
            "seq": .uint(seq),
            "status": .int(Int64(status)),
            "streamId": .int(Int64(streamID)),
            "timestamp": .int(verdict.timestamp),
            "topic": .string(verdict.topic),
            "uniqueId": .string(uniqueID),
        ]
    }

    /// The decoded `authorization: bearer <header>.<claims>[.<signature>]`, or `nil` when the
    /// request had no bearer authorization. Done on bytes: Foundation's string trimming and
    /// base64 cost more than the rest of the record.
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
            guard let data = Self.base64URLDecode(parts[index]), let json = ControlJSON.parse(data),
                  case .object = json else { return .string(String(decoding: parts[index], as: UTF8.self)) }
            return json
        }
        return ["claims": decode(1), "header": decode(0)]
    }

    /// base64url (RFC 4648 section 5), padding optional; `nil` on any other character or an
    /// impossible length.
    private static func base64URLDecode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var input = text
        while input.last == UInt8(ascii: "=") { input = input.dropLast() }
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in input {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
