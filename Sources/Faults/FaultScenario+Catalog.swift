import JSONInput

/// What each scenario does, in words, for the list the control API serves
/// (`GET /v1/fault-scenarios`, docs/console.md §6): the web console's scenario picker fills its
/// JSON editor with `example`.
extension FaultScenario {
    /// One sentence on what the scenario does to the pushes or connections (the table on
    /// `FaultScenario`).
    public var summary: String {
        switch self {
        case .apnsOutage:
            return "503 ServiceUnavailable to every push; for durationMs milliseconds when given, else until deleted"
        case .flaky:
            return "500 InternalServerError to percent% of pushes (default 10), drawn reproducibly from seed"
        case .tokenExpiry:
            return "403 ExpiredProviderToken to every push carrying an authorization header"
        case .gracefulRestart:
            return "GOAWAY NO_ERROR {\"reason\":\"Shutdown\"} on each connection's next push, once per connection, "
                + "for windowMs milliseconds (default 1000)"
        case .throttled:
            return "429 TooManyRequests above perSecond pushes per device token (burst: the bucket's size)"
        case .rollingRestart:
            return "no rule: every connection open now is drained at a seeded moment within windowMs "
                + "(default 10000), each given drainMs (default 5000) to answer its streams"
        }
    }

    /// Each parameter's meaning, in `parameterNames` order: `(name, description)`.
    public var parameterDescriptions: [(name: String, description: String)] {
        parameterNames.map { name in
            let description: String
            switch name {
            case "durationMs":
                description = "how long the outage lasts, milliseconds (1 to a year); absent: until deleted"
            case "percent": description = "the share of pushes answered 500, 0 to 100 (default 10)"
            case "seed": description = "the seed of the draws (an unsigned 64-bit integer); absent: one picked"
            case "windowMs" where self == .rollingRestart:
                description = "the milliseconds within which every connection is drained (default 10000)"
            case "windowMs": description = "how long the restart lasts, milliseconds (default 1000)"
            case "drainMs":
                description = "how long a drained connection may answer its streams, milliseconds (default 5000)"
            case "perSecond": description = "required: pushes per second per device token, above 0"
            case "burst": description = "the bucket's size, pushes (default: perSecond rounded up)"
            default: description = ""
            }
            return (name, description)
        }
    }

    /// A `POST /v1/faults` body that adds the scenario, with example values for the parameters
    /// it needs or that show what it does: `{"scenario": "<name>", "parameters": {...}}`.
    public var example: JSONNode {
        let parameters: [String: JSONNode]
        switch self {
        case .apnsOutage: parameters = ["durationMs": .int(60_000)]
        case .flaky: parameters = ["percent": .int(10), "seed": .int(7)]
        case .tokenExpiry: parameters = [:]
        case .gracefulRestart: parameters = ["windowMs": .int(1000)]
        case .throttled: parameters = ["perSecond": .int(5), "burst": .int(5)]
        case .rollingRestart: parameters = ["windowMs": .int(10_000), "drainMs": .int(5000), "seed": .int(7)]
        }
        return ["scenario": .string(rawValue), "parameters": .object(parameters)]
    }
}
