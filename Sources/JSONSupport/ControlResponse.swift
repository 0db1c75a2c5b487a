import Foundation
import HTTPFields
import JSONInput

/// One HTTP/1.1 answer of the control API. The body is always JSON (`content-type:
/// application/json`), UTF-8, with sorted keys.
public struct ControlResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// Headers to send besides `content-type: application/json` and the length (e.g. `allow` on
    /// 405), names lowercase.
    public var headers: [HeaderField]
    /// The JSON body.
    public var body: [UInt8]
    /// The body's `content-type`: `contentType` (JSON) but for `GET /metrics`'s text.
    public var contentType: String = ControlResponse.contentType

    /// Creates an answer from ready body bytes.
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates an answer from ready body bytes of the content type given (`GET /metrics`).
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8], contentType: String) {
        self.init(status: status, headers: headers, body: body)
        self.contentType = contentType
    }

    /// Creates an answer whose body is `json`, encoded compactly with sorted keys.
    public init(status: Int, json: JSONNode, headers: [HeaderField] = []) {
        self.init(status: status, encoding: json, headers: headers)
    }

    /// Creates an answer whose body is `value` encoded by Foundation's `JSONEncoder`: compact,
    /// keys sorted, slashes unescaped.
    public init(status: Int, encoding value: some Encodable, headers: [HeaderField] = []) {
        do {
            self.init(status: status, headers: headers, body: Array(try Self.encoder.encode(value)))
        } catch {
            // JSONEncoder refuses only non-finite numbers, which JSONNode writes as null; should
            // that change, an error answer still beats a crash.
            self.init(status: 500, body: Array(#"{"error":"the answer could not be encoded as JSON"}"#.utf8))
        }
    }

    // Shared: Sendable, and its options are set once.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The content type of every control API answer but `GET /metrics`.
    public static let contentType = "application/json"
}
