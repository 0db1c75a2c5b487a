import HTTPFields
import JSONInput
import JSONSupport

/// The `"type"`-discriminated JSON form of `FaultAction` (table on `FaultAction`). Unknown keys
/// are refused per type, so a field of another type (`ms` on `respond`) is an error, not ignored.
extension FaultAction {
    public init(from decoder: any Decoder) throws {
        let object = try FaultObjectReader(decoder, keys: nil)
        let type = try object.required(
            "type", String.self, expected: "one of \(Self.typeNames.joined(separator: ", "))")
        guard Self.typeNames.contains(type) else {
            let near = ClosestMatch.hint(type, among: Self.typeNames)
            throw object.error(
                "type",
                "unknown action \(InputError.quoted(type))\(near); "
                    + "expected one of \(Self.typeNames.joined(separator: ", "))")
        }
        try object.allow(["type"] + Self.fields(of: type))
        switch type {
        case "respond":
            self = .respond(try FaultResponse(reading: object))
        case "sickConnection":
            self = .sickConnection(try FaultResponse(reading: object))
        case "delay":
            let then = try object.optional("then", FaultAction.self, expected: "an action object")
            if let latency = try FaultLatency.read(object) {
                self = .randomDelay(latency, then: then)
            } else {
                self = .delay(
                    milliseconds: try object.required(
                        "ms", Int64.self, expected: "an integer of milliseconds"),
                    then: then)
            }
        case "noResponse":
            self = .noResponse
        case "blackhole":
            self = .blackhole
        case "drain":
            self = .drain(
                reason: try object.optional("reason", String.self, expected: "a string (the GOAWAY's reason)")
                    ?? "Shutdown",
                maxMilliseconds: try object.optional("maxMs", Int64.self, expected: "an integer of milliseconds")
                    ?? Self.defaultDrainMilliseconds)
        case "resetStream":
            self = .resetStream(
                try object.required("errorCode", HTTP2ErrorCode.self, expected: HTTP2ErrorCode.expected))
        case "goaway":
            self = .goaway(try GoawayFault(reading: object))
        case "close", "reset":
            let moment =
                try object.optional("when", ResponseTiming.self, expected: "\"before-response\" or \"after-response\"")
                ?? .beforeResponse
            self = type == "close" ? .close(moment) : .reset(moment)
        case "settings":
            self = .settings(
                maxConcurrentStreams: try object.required(
                    "maxConcurrentStreams", UInt32.self,
                    expected: "an integer from 0 to 4294967295"))
        case "withholdWindowUpdate":
            self = .withholdWindowUpdate(
                milliseconds: try object.required("ms", Int64.self, expected: "an integer of milliseconds"))
        case "sequence":
            self = .sequence(
                try object.required("steps", [FaultStep].self, expected: "an array of actions and \"pass\""))
        case "streamRateLimit":
            self = .streamRateLimit(try FaultStreamRateLimit(reading: object))
        default:
            self = .rateLimit(try FaultRateLimit(reading: object))
        }
        // Nesting (a sequence inside a sequence) is checked by the enclosing action's validation.
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    /// The keys besides `type` each action takes.
    static func fields(of type: String) -> [String] {
        switch type {
        case "respond", "sickConnection": return FaultResponse.keys
        case "delay": return ["ms", "then"] + FaultLatency.keys
        case "resetStream": return ["errorCode"]
        case "goaway": return GoawayFault.keys
        case "close", "reset": return ["when"]
        case "settings": return ["maxConcurrentStreams"]
        case "withholdWindowUpdate": return ["ms"]
        case "sequence": return ["steps"]
        case "rateLimit": return FaultRateLimit.keys
        case "streamRateLimit": return FaultStreamRateLimit.keys
        case "drain": return ["reason", "maxMs"]
        default: return []
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        try container.encode(typeName, forKey: FaultCodingKey("type"))
        switch self {
        case .respond(let response), .sickConnection(let response):
            try response.write(into: &container)
        case .delay(let ms, let then):
            try container.encode(ms, forKey: FaultCodingKey("ms"))
            try container.encodeIfPresent(then, forKey: FaultCodingKey("then"))
        case .randomDelay(let latency, let then):
            try latency.write(into: &container)
            try container.encodeIfPresent(then, forKey: FaultCodingKey("then"))
        case .noResponse, .blackhole:
            break
        case .drain(let reason, let ms):
            try container.encode(reason, forKey: FaultCodingKey("reason"))
            try container.encode(ms, forKey: FaultCodingKey("maxMs"))
        case .resetStream(let code):
            try container.encode(code, forKey: FaultCodingKey("errorCode"))
        case .goaway(let goaway):
            try goaway.write(into: &container)
        case .close(let moment), .reset(let moment):
            try container.encode(moment, forKey: FaultCodingKey("when"))
        case .settings(let limit):
            try container.encode(limit, forKey: FaultCodingKey("maxConcurrentStreams"))
        case .withholdWindowUpdate(let ms):
            try container.encode(ms, forKey: FaultCodingKey("ms"))
        case .sequence(let steps):
            try container.encode(steps, forKey: FaultCodingKey("steps"))
        case .rateLimit(let limit):
            try limit.write(into: &container)
        case .streamRateLimit(let limit):
            try limit.write(into: &container)
        }
    }
}
