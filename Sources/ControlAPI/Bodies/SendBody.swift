import HTTPFields
import JSONInput
import JSONSupport

/// The body of `POST /v1/send` (docs/console.md): a push for the server to send to one of its
/// own APNs listeners through its HTTP/2 client.
///
/// - `token` (required): the device token, hex; the path is `/3/device/<token>`;
/// - `headers`: `[{"name": "apns-topic", "value": "com.example.app"}, …]`, sent in order (names
///   lowercased); refused with a 400 naming `headers[N].name` or `headers[N].value`: a
///   pseudo-header, `content-length`, a connection-specific field (`connection`, `keep-alive`,
///   `proxy-connection`, `transfer-encoding`, `upgrade`, a `te` other than `trailers`), a value
///   with a control character (CR, LF, NUL…) or leading or trailing whitespace: what HTTP/2
///   forbids and the listener would only reset;
/// - `payload`: the body, a string sent as its UTF-8 bytes or any other JSON value sent
///   compactly with sorted keys; absent or null: empty;
/// - `listener`: the listener's name; absent: the first.
///
/// Other keys are refused with a "did you mean".
struct SendBody: Decodable, Equatable {
    var token: String
    var headers: [HeaderField] = []
    var payload: [UInt8] = []
    var listener: String?

    /// The body's shape, for messages.
    static let form =
        #"a JSON object like {"token": "<hex>", "headers": [{"name": "apns-topic", "value": "com.example.app"}], "payload": "{\"aps\":{}}", "listener": "default"}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, headers, payload, listener
    }

    private struct Header: Decodable {
        var name: String
        var value: String
        enum CodingKeys: String, CodingKey, CaseIterable { case name, value }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        token = try container.decode(String.self, forKey: .token)
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw InputError(at: container.codingPath + [CodingKeys.token], "expected hex digits, got \"\(token)\"")
        }
        for (index, header) in try (container.decodeIfPresent([Header].self, forKey: .headers) ?? []).enumerated() {
            let field = InputError.join(InputError.path(container.codingPath), "headers[\(index)]")
            let name = header.name.lowercased()
            if let problem = Self.nameProblem(name) {
                throw InputError(
                    path: InputError.join(field, "name"), message: problem + ", got " + InputError.quoted(header.name))
            }
            if let problem = Self.valueProblem(name: name, value: header.value) {
                throw InputError(
                    path: InputError.join(field, "value"), message: problem + ", got " + InputError.quoted(header.value)
                )
            }
            headers.append(HeaderField(name: name, value: header.value))
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .payload) {
        case nil, .null?: payload = []
        case .string(let text)?: payload = Array(text.utf8)
        case let other?: payload = ControlResponse(status: 200, json: other).body
        }
        listener = try container.decodeIfPresent(String.self, forKey: .listener)
    }

    /// The connection-specific header fields HTTP/2 forbids (RFC 9113 §8.2.2); `te` is allowed
    /// only as `trailers`.
    static let connectionSpecificNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]

    /// Why `name` (lowercased) cannot be sent, or nil: empty, a pseudo-header, `content-length`
    /// (the client sets it), a connection-specific field, or a character other than letters,
    /// digits, `-` and `_`.
    static func nameProblem(_ name: String) -> String? {
        if name.hasPrefix(":") { return "expected a header field name, not a pseudo-header (the client sets those)" }
        if name == "content-length" {
            return "expected a header field name other than content-length (the client sets it)"
        }
        if connectionSpecificNames.contains(name) {
            return
                "expected a header field name that HTTP/2 allows, not the connection-specific \(name) (RFC 9113 §8.2.2)"
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return "expected a header name of letters, digits and '-'" }
        return nil
    }

    /// Why `value` cannot be sent in the field `name`, or nil: what nghttp2 refuses as malformed
    /// (RFC 9113 §8.2.1: a NUL, CR, LF or other control character but HTAB, or DEL; leading or
    /// trailing space or HTAB) and a `te` other than `trailers` (§8.2.2). Such a value would
    /// reach the listener as a reset stream, not an answer.
    static func valueProblem(name: String, value: String) -> String? {
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return "expected a header value without CR, LF, NUL or other control characters (RFC 9113 §8.2.1)"
        }
        if let first = value.unicodeScalars.first, let last = value.unicodeScalars.last,
            [" ", "\t"].contains(first) || [" ", "\t"].contains(last)
        {
            return "expected a header value without leading or trailing space or tab (RFC 9113 §8.2.1)"
        }
        if name == "te", value != "trailers" {
            return #"expected "trailers", the only te HTTP/2 allows (RFC 9113 §8.2.2)"#
        }
        return nil
    }

    /// The push the body describes.
    var push: ComposedPush {
        ComposedPush(listener: listener, token: token.lowercased(), headers: headers, payload: payload)
    }
}
