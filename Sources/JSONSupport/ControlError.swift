import HTTPFields

/// A control API request that cannot be served: becomes a 4xx answer with the JSON body
/// `{"error": message}`.
public struct ControlError: Error, Sendable, Equatable {
    /// The HTTP status: 400, 404 or 405.
    public var status: Int
    /// What was wrong, naming the parameter, field or path at fault.
    public var message: String
    /// For 405: the methods the path allows (sent as the `allow` header).
    public var allow: [String]

    /// Creates an error answered with `status`.
    public init(status: Int, message: String, allow: [String] = []) {
        self.status = status
        self.message = message
        self.allow = allow
    }

    /// 400 Bad Request with `message`.
    public static func badRequest(_ message: String) -> ControlError {
        ControlError(status: 400, message: message)
    }

    /// 404 Not Found with `message`.
    public static func notFound(_ message: String) -> ControlError {
        ControlError(status: 404, message: message)
    }

    /// 409 Conflict with `message`: the request is well-formed but the target's state refuses it.
    public static func conflict(_ message: String) -> ControlError {
        ControlError(status: 409, message: message)
    }

    /// The answer carrying this error.
    public var response: ControlResponse {
        var headers: [HeaderField] = []
        if !allow.isEmpty { headers.append(HeaderField(name: "allow", value: allow.joined(separator: ", "))) }
        return ControlResponse(status: status, json: ["error": .string(message)], headers: headers)
    }
}
