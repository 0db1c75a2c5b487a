import Faults
import JSONInput
import JSONSupport

/// The `faults` and `scenarios` keys of a configuration file (issue "Fault injection",
/// section 2). A rule is read by the fault rules' own decoder, so it reads the same here as in
/// `POST /v1/faults`; errors name the field under the key, e.g. `faults[1].action.status` or
/// `scenarios[0].parameters.durationMs`.
extension ConfigurationFile {
    static let scenarioKeys = ["name", "parameters"]

    /// `faults`: an array of fault rule objects (`FaultRule`), each read by the rules' own
    /// decoding inside this decoder, with the field paths of the file (`faults[1].action.status`).
    static func faultRules(_ value: JSONNode, in root: ConfigurationObject) throws(ConfigurationError) -> [FaultRule] {
        guard case .array(let elements) = value else {
            throw ConfigurationError(
                field: "faults", message: "expected an array of fault rule objects, got \(value.rendered)")
        }
        for (index, element) in elements.enumerated() {
            guard case .object = element else {
                throw ConfigurationError(
                    field: "faults[\(index)]", message: "expected a fault rule object, got \(element.rendered)")
            }
        }
        return try root.decode([FaultRule].self, "faults")
    }

    /// `scenarios`: an array of `{"name": "<scenario>", "parameters": {...}}`, expanded into the
    /// scenarios' rules in order (`FaultScenario`).
    /// - Parameter nowMilliseconds: milliseconds since the Unix epoch from which scenario
    ///   durations and windows (`durationMs`, `windowMs`) are counted.
    static func scenarioRules(_ value: JSONNode, in root: ConfigurationObject, nowMilliseconds: Int64)
        throws(ConfigurationError) -> [FaultRule]
    {
        guard case .array = value else {
            throw ConfigurationError(
                field: "scenarios",
                message: "expected an array of {\"name\", \"parameters\"} objects, got \(value.rendered)")
        }
        let names = FaultScenario.allCases.map(\.rawValue).joined(separator: ", ")
        var rules: [FaultRule] = []
        for element in try root.elements("scenarios") {
            let reader = try ConfigurationObject(element, keys: scenarioKeys)
            guard let nameValue = reader["name"] else {
                throw ConfigurationError(field: reader.field("name"), message: "missing; expected one of \(names)")
            }
            let name = try nameValue.text(at: reader.field("name"), expected: "a scenario name (one of \(names))")
            var parameters: [String: JSONNode] = [:]
            switch reader["parameters"] {
            case nil, .null?:
                break
            case .object(let members)?:
                parameters = members
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
                    error.field == "scenario" ? reader.field("name") : InputError.join(reader.path, error.field)
                throw ConfigurationError(field: field, message: error.message)
            }
        }
        return rules
    }
}
