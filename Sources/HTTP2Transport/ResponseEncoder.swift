import CNGHTTP2

/// Lays a response's header section out as nghttp2 name/value pairs: `:status` first, then the
/// response's header fields in order, then its generated UUID fields (`HTTP2Response.uuidHeaders`).
///
/// Names and values are copied into one buffer, and the name/value pairs into another, both on
/// the stack: nghttp2 copies them during the submit call. The strings are read in place (no
/// copy, no reference counting) and the status is written as digits, not made a String.
enum ResponseEncoder {
    /// Calls `body` with `response`'s header section as `count` pairs at `fields`, valid during
    /// the call only, and returns its result. Inlined so the two buffers are stack allocations.
    @inline(__always)
    static func withFields<R>(
        of response: borrowing HTTP2Response,
        _ body: (_ fields: UnsafePointer<nghttp2_nv>, _ count: Int) -> R
    ) -> R {
        let status = response.status
        let sign = status < 0 ? 1 : 0  // a negative status is sent as written, with its minus sign
        let statusLength = sign + ResponseEncoder.decimalLength(of: status.magnitude)
        var total = 7 + statusLength
        for index in response.headers.indices {
            total += response.headers[index].name.utf8.count + response.headers[index].value.utf8.count
        }
        let uuids = response.uuidHeaders
        for index in 0..<uuids.count {
            total += uuids[index].name.withUTF8Buffer { $0.count } + UUIDHeaderField.valueLength
        }
        let count = response.headers.count + uuids.count + 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { nva in
                let base = storage.baseAddress!
                let pairs = nva.baseAddress!
                var offset = ResponseEncoder.copy(":status", to: base)
                if sign == 1 { base[offset] = UInt8(ascii: "-") }
                var rest = status.magnitude
                for index in stride(from: offset + statusLength - 1, through: offset + sign, by: -1) {
                    base[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                offset += statusLength
                pairs.initialize(
                    to: nghttp2_nv(
                        name: base, value: base + 7, namelen: 7, valuelen: offset - 7,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                for index in response.headers.indices {
                    let name = offset
                    offset += ResponseEncoder.copy(response.headers[index].name, to: base + offset)
                    let value = offset
                    offset += ResponseEncoder.copy(response.headers[index].value, to: base + offset)
                    (pairs + index + 1).initialize(
                        to: nghttp2_nv(
                            name: base + name, value: base + value, namelen: value - name, valuelen: offset - value,
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                for index in 0..<uuids.count {
                    let field = uuids[index]
                    let name = offset
                    offset += field.name.withUTF8Buffer { name in
                        (base + offset).initialize(from: name.baseAddress!, count: name.count)
                        return name.count
                    }
                    let value = offset
                    UUIDHeaderField.spell(
                        high: field.high, low: field.low, uppercase: field.uppercase, into: base + offset)
                    offset += UUIDHeaderField.valueLength
                    (pairs + response.headers.count + index + 1).initialize(
                        to: nghttp2_nv(
                            name: base + name, value: base + value, namelen: value - name, valuelen: offset - value,
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                return body(pairs, count)
            }
        }
    }

    /// Copies `text`'s UTF-8 to `destination`, which has room for it; returns how many bytes.
    @inline(__always)
    private static func copy(_ text: String, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        // UTF8View copies a native string's bytes with one memcpy.
        let count = text.utf8.count
        _ = UnsafeMutableBufferPointer(start: destination, count: count).initialize(from: text.utf8)
        return count
    }

    /// How many decimal digits `value` has.
    @inline(__always)
    static func decimalLength(of value: UInt) -> Int {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        return length
    }
}
