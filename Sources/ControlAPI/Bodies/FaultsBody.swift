import Faults
import JSONInput
import JSONSupport

/// The body of `POST /v1/faults`: one rule object, an array of rules (at least one), or
/// `{"scenario": "<name>", "parameters": {...}}` (parameters optional). Rules are read by
/// `FaultRule`'s own decoding, so a field's error is the same as anywhere else
/// (`[1].action.status: must be 400-599, got 200`).
enum FaultsBody: Decodable, Equatable {
    case rules([FaultRule])
    case scenario(name: String, parameters: [String: JSONNode])

    /// What the body may be, for messages.
    static let forms = #"a rule object, an array of rules, or {"scenario": "<name>", "parameters": {...}}"#

    /// The keys of the scenario form.
    enum ScenarioKeys: String, CodingKey, CaseIterable {
        case scenario, parameters
    }

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        switch try single.decode(JSONNode.self) {
        case .array(let items):
            guard !items.isEmpty else {
                throw InputError(path: "", message: "the array holds no rules; give at least one")
            }
            self = .rules(try single.decode([FaultRule].self))
        case .object(let members) where members["scenario"] != nil:
            self = try Self.scenario(members, decoder: decoder)
        case .object:
            self = .rules([try single.decode(FaultRule.self)])
        case let other:
            throw InputError(path: "", message: "expected \(Self.forms), got \(other.rendered)")
        }
    }

    /// The scenario form, with the wording of its own errors.
    private static func scenario(_ members: [String: JSONNode], decoder: any Decoder) throws -> FaultsBody {
        let keys = ScenarioKeys.allCases.map(\.rawValue)
        if let unknown = members.keys.sorted().first(where: { !keys.contains($0) }) {
            throw InputError(
                path: unknown, message: "unknown key; a scenario body takes only " + keys.joined(separator: " and "))
        }
        let container = try decoder.container(keyedBy: ScenarioKeys.self)
        guard case .string(let name) = try container.decode(JSONNode.self, forKey: .scenario) else {
            let names = FaultScenario.allCases.map(\.rawValue).joined(separator: ", ")
            throw InputError(
                path: "scenario",
                message: "expected a scenario name (one of \(names)), got \(members["scenario"]?.rendered ?? "null")")
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .parameters) {
        case nil: return .scenario(name: name, parameters: [:])
        case .object(let values)?: return .scenario(name: name, parameters: values)
        case let other?:
            throw InputError(path: "parameters", message: "expected an object of parameters, got \(other.rendered)")
        }
    }

    /// The rules the body asks for, not yet added.
    /// - Parameter nowMilliseconds: now, milliseconds since the Unix epoch: the start of a
    ///   scenario's window or duration.
    func rules(nowMilliseconds: Int64) throws(FaultRuleError) -> [FaultRule] {
        switch self {
        case .rules(let rules): return rules
        case .scenario(let name, let parameters):
            return try FaultScenario.rules(named: name, parameters: parameters, nowMilliseconds: nowMilliseconds)
        }
    }
}
