import Faults
import JSONInput
import JSONSupport

/// The `faults` and `scenarios` keys of a configuration file (issue "Fault injection",
/// section 2). A rule is read by the fault rules' own decoder, so it reads the same here as in
/// `POST /v1/faults`; errors name the field under the key, e.g. `faults[1].action.status` or
/// `scenarios[0].parameters.durationMs`.
extension ConfigurationFile {
    static let scenarioKeys = ["name", "parameters"]

    /// `faults`: an array of fault rule objects (`FaultRule`).
    static func faultRules(_ value: JSONValue) throws(ConfigurationError) -> [FaultRule] {
        guard case .array(let elements) = value else {
            throw ConfigurationError(
                field: "faults", message: "expected an array of fault rule objects, got \(value.rendered)")
        }
        var rules: [FaultRule] = []
        for (index, element) in elements.enumerated() {
            let path = "faults[\(index)]"
            guard case .object = element else {
                throw ConfigurationError(field: path, message: "expected a fault rule object, got \(element.rendered)")
            }
            do {
                // The parsed value itself, read by the rules' own decoder (no JSON text in between).
                rules.append(try FaultRule.decode(node: element.node))
            } catch {
                throw ConfigurationError(field: FaultRuleError.join(path, error.field), message: error.message)
            }
        }
        return rules
    }

    /// `scenarios`: an array of `{"name": "<scenario>", "parameters": {...}}`, expanded into the
    /// scenarios' rules in order (`FaultScenario`).
    /// - Parameter nowMilliseconds: milliseconds since the Unix epoch from which scenario
    ///   durations and windows (`durationMs`, `windowMs`) are counted.
    static func scenarioRules(_ value: JSONValue, nowMilliseconds: Int64) throws(ConfigurationError) -> [FaultRule] {
        guard case .array(let elements) = value else {
            throw ConfigurationError(
                field: "scenarios",
                message: "expected an array of {\"name\", \"parameters\"} objects, got \(value.rendered)")
        }
        let names = FaultScenario.allCases.map(\.rawValue).joined(separator: ", ")
        var rules: [FaultRule] = []
        for (index, element) in elements.enumerated() {
            let reader = try JSONObjectReader(element, path: "scenarios[\(index)]", keys: scenarioKeys)
            guard let nameValue = reader["name"] else {
                throw ConfigurationError(field: reader.field("name"), message: "missing; expected one of \(names)")
            }
            let name = try nameValue.text(at: reader.field("name"), expected: "a scenario name (one of \(names))")
            var parameters: [String: ControlJSON] = [:]
            switch reader["parameters"] {
            case nil, .null?:
                break
            case .object(let members)?:
                for member in members { parameters[member.key] = member.value.controlJSON }
            case let other?:
                throw ConfigurationError(
                    field: reader.field("parameters"),
                    message: "expected an object of parameters, got \(other.rendered)")
            }
            do {
                rules += try FaultScenario.rules(named: name, parameters: parameters, nowMilliseconds: nowMilliseconds)
            } catch {
                // FaultScenario calls the name `scenario`; here it is `name`.
                let field =
                    error.field == "scenario" ? reader.field("name") : FaultRuleError.join(reader.path, error.field)
                throw ConfigurationError(field: field, message: error.message)
            }
        }
        return rules
    }
}

extension JSONValue {
    /// The value as the control API holds JSON: integral numbers that fit `Int64` as `.int`,
    /// other numbers as `.double`.
    var controlJSON: ControlJSON {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let text):
            if let integer = Int64(text) { return .int(integer) }
            return Double(text).map(ControlJSON.double) ?? .null
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(\.controlJSON))
        case .object(let members):
            return .object(
                Dictionary(members.map { ($0.key, $0.value.controlJSON) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The value as `StrictJSONDecoder` holds one: integral numbers that fit `Int64` as `.int`,
    /// larger ones that fit `UInt64` as `.uint`, other numbers as `.double`.
    var node: JSONNode {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let text):
            if let integer = Int64(text) { return .int(integer) }
            if let integer = UInt64(text) { return .uint(integer) }
            return Double(text).map(JSONNode.double) ?? .null
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(\.node))
        case .object(let members):
            return .object(
                Dictionary(members.map { ($0.key, $0.value.node) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}
