/// Hand-built HTTP/2 frames for the scripted server: just enough to answer, reset and go away.
enum HTTP2Frames {
    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + bigEndian(stream & 0x7fff_ffff) + payload
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// An empty SETTINGS frame (all defaults).
    static func settings() -> [UInt8] { frame(type: 4, flags: 0, stream: 0, payload: []) }

    /// SETTINGS with MAX_CONCURRENT_STREAMS (id 3).
    static func settings(maxConcurrentStreams: UInt32) -> [UInt8] {
        frame(type: 4, flags: 0, stream: 0, payload: [0, 3] + bigEndian(maxConcurrentStreams))
    }

    static func goAway(lastStream: UInt32, code: UInt32, debug: String = "") -> [UInt8] {
        frame(type: 7, flags: 0, stream: 0, payload: bigEndian(lastStream) + bigEndian(code) + Array(debug.utf8))
    }

    static func rstStream(_ stream: UInt32, code: UInt32) -> [UInt8] {
        frame(type: 3, flags: 0, stream: stream, payload: bigEndian(code))
    }

    /// HEADERS (END_HEADERS) with every field as an HPACK literal without indexing, new name,
    /// no Huffman; names and values must be shorter than 127 bytes.
    static func headers(_ stream: UInt32, _ fields: [(String, String)], endStream: Bool) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            precondition(name.utf8.count < 127 && value.utf8.count < 127)
            block += [0, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
        }
        return frame(type: 1, flags: 0x4 | (endStream ? 0x1 : 0), stream: stream, payload: block)
    }

    static func data(_ stream: UInt32, _ body: String, endStream: Bool = true) -> [UInt8] {
        frame(type: 0, flags: endStream ? 0x1 : 0, stream: stream, payload: Array(body.utf8))
    }

    /// A whole APNs-style response: status, optional apns-id, optional JSON body.
    static func response(_ stream: UInt32, status: Int, apnsID: String? = nil, body: String? = nil) -> [UInt8] {
        var fields = [(":status", String(status))]
        if let apnsID { fields.append(("apns-id", apnsID)) }
        guard let body else { return headers(stream, fields, endStream: true) }
        return headers(stream, fields + [("content-type", "application/json")], endStream: false) + data(stream, body)
    }
}
