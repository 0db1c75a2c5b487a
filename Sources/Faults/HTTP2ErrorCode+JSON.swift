import HTTPFields
import JSONInput
import JSONSupport

/// A fault's HTTP/2 error code as JSON: the name (`"REFUSED_STREAM"`, any case) or the number
/// (`7`, 0 to 2^32-1). Named codes are written back as names, others as numbers.
extension HTTP2ErrorCode: Codable {
    package static let expected =
        "an HTTP/2 error code name such as \"REFUSED_STREAM\" or a number from 0 to 4294967295"

    public init(from decoder: any Decoder) throws {
        do {
            self = try Self(node: try decoder.singleValueContainer().decode(JSONNode.self))
        } catch let error as InputError {
            throw InputError(at: decoder.codingPath, error.message)
        }
    }

    /// The code `node` gives: a name (any case) or a number from 0 to 2^32-1.
    /// - Throws: `InputError` without a path (the caller's field): `unknown error code "NO_ERRO"
    ///   (did you mean "NO_ERROR"?); expected ...` or `expected ..., got -1`.
    package init(node: JSONNode) throws(InputError) {
        switch node {
        case .string(let text):
            guard let code = HTTP2ErrorCode(name: text) else {
                let near = ClosestMatch.hint(text, among: Self.names)
                throw InputError(
                    path: "", message: "unknown error code \(InputError.quoted(text))\(near); expected \(Self.expected)"
                )
            }
            self = code
        case .int(let number) where number >= 0 && number <= Int64(UInt32.max):
            self.init(rawValue: UInt32(number))
        default:
            throw InputError(path: "", message: "expected \(Self.expected), got \(node.rendered)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let name { try container.encode(name) } else { try container.encode(rawValue) }
    }
}
