import HTTPFields
import JSONInput
import JSONSupport

/// The body of `POST /v1/send` (docs/console.md): a push for the server to send to one of its
/// own APNs listeners through its HTTP/2 client.
///
/// - `token` (required): the device token, hex; the path is `/3/device/<token>`;
/// - `headers`: `[{"name": "apns-topic", "value": "com.example.app"}, …]`, sent in order (names
///   lowercased; pseudo-headers and `content-length` refused);
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
            let name = header.name.lowercased()
            guard !name.isEmpty, !name.hasPrefix(":"), name != "content-length",
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.headers],
                    "[\(index)]: expected a header name of letters, digits and '-' (not a pseudo-header or content-length), got "
                        + InputError.quoted(header.name))
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

    /// The push the body describes.
    var push: ComposedPush {
        ComposedPush(listener: listener, token: token.lowercased(), headers: headers, payload: payload)
    }
}
