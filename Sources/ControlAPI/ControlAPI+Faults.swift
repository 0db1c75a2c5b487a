import Faults
import JSONInput
import JSONSupport

/// The `/v1/faults` endpoints: list, add, inspect and remove the fault rules of `faults`
/// (issue "Fault injection", section 2).
extension ControlAPI {
    /// `{"faults": [rule + "matched", "fired", "spent"...]}`, in evaluation order.
    /// With `rollingRestart` (`RollingRestartRun.Status`) while a rolling restart's GOAWAYs are
    /// still to come.
    func listFaults() -> ControlResponse {
        ControlResponse(
            status: 200,
            encoding: FaultList(faults: faults.rules(), rollingRestart: connections?.rollingRestartInProgress()))
    }

    /// Body: one rule object, an array of rules (added all or none), or
    /// `{"scenario": "<name>", "parameters": {...}}`. Answers 201 `{"faults": [...]}`: the rules
    /// as stored, ids assigned. A bad body is a 400 naming the field (`[1].action.status`,
    /// `parameters.durationMs`); an unknown scenario a 400 listing the scenarios.
    func addFaults(body: [UInt8]) throws(ControlError) -> ControlResponse {
        if let restart = try Self.rollingRestart(body: body) {
            if let running = connections?.rollingRestartInProgress() {
                let waiting = running.connections.filter { !$0.done }.map { String($0.id) }
                throw .conflict(
                    "a rolling restart is in progress (seed \(running.seed); connections "
                        + "\(waiting.joined(separator: ", ")) still to go away); DELETE /v1/faults cancels it")
            }
            let ids = connections?.startRollingRestart(restart) ?? []
            let scheduled: [JSONNode] = ids.map { id in
                ["id": .uint(id), "goawayAfterMs": .int(restart.delayMilliseconds(forConnection: id))]
            }
            return ControlResponse(
                status: 201,
                json: [
                    "faults": .array([]),
                    "rollingRestart": [
                        "seed": .uint(restart.seed), "windowMs": .int(restart.windowMilliseconds),
                        "drainMs": .int(restart.drainMilliseconds), "connections": .array(scheduled),
                    ],
                ])
        }
        do {
            let rules = try Self.faultRules(body: body, nowMilliseconds: nowMilliseconds)
            return ControlResponse(status: 201, encoding: FaultList(faults: try faults.add(contentsOf: rules)))
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// `{"removed": N, "rollingRestartCancelled": bool}`: every rule removed, every sick
    /// connection healed, and the GOAWAYs still to come of a rolling restart cancelled.
    func clearFaults() -> ControlResponse {
        // Counted before removing: only this (single) control thread adds rules, so none can
        // slip in between.
        let removed = faults.rules().count
        faults.removeAll()
        let cancelled = connections?.cancelRollingRestart() ?? false
        return ControlResponse(
            status: 200, json: ["removed": .int(Int64(removed)), "rollingRestartCancelled": .bool(cancelled)])
    }

    /// The rule `id` with its counters; 404 when there is none.
    func fault(id: String) throws(ControlError) -> ControlResponse {
        guard let status = faults.rules().first(where: { $0.rule.id == id }) else {
            throw .notFound("no fault rule with id \(id)")
        }
        return ControlResponse(status: 200, encoding: status)
    }

    /// `{"deleted": id}`; 404 when there is no such rule.
    func deleteFault(id: String) throws(ControlError) -> ControlResponse {
        guard faults.remove(id: id) else { throw .notFound("no fault rule with id \(id)") }
        return ControlResponse(status: 200, json: ["deleted": .string(id)])
    }

    /// `{"scenarios": [{"name", "summary", "parameters": [{"name", "description"}], "example"}]}`:
    /// every preset `POST /v1/faults` takes as `{"scenario", "parameters"}` (`FaultScenario`),
    /// in declaration order; `example` is such a body. A path of its own, not
    /// `/v1/faults/scenarios`, which is the rule of id `scenarios`.
    func listFaultScenarios() -> ControlResponse {
        let scenarios: [JSONNode] = FaultScenario.allCases.map { scenario in
            [
                "name": .string(scenario.rawValue), "summary": .string(scenario.summary),
                "parameters": .array(
                    scenario.parameterDescriptions.map {
                        ["name": .string($0.name), "description": .string($0.description)]
                    }
                ),
                "example": scenario.example,
            ]
        }
        return ControlResponse(status: 200, json: ["scenarios": .array(scenarios)])
    }

    /// The `rolling-restart` a `POST /v1/faults` body asks for, or nil for any other body.
    static func rollingRestart(body: [UInt8]) throws(ControlError) -> RollingRestart? {
        guard case .scenario(let name, let parameters)? = try? StrictJSONDecoder().decode(FaultsBody.self, from: body),
            name == FaultScenario.rollingRestart.rawValue
        else { return nil }
        do {
            return try RollingRestart(parameters: parameters)
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// The keys of the scenario form of a `POST /v1/faults` body.
    static let scenarioBodyKeys = FaultsBody.ScenarioKeys.allCases.map(\.rawValue)

    /// The rules a `POST /v1/faults` body (`FaultsBody`) asks for, not yet added.
    /// - Parameter nowMilliseconds: now, milliseconds since the Unix epoch: the start of a
    ///   scenario's window or duration.
    static func faultRules(body: [UInt8], nowMilliseconds: Int64) throws(FaultRuleError) -> [FaultRule] {
        let decoded: FaultsBody
        do {
            decoded = try StrictJSONDecoder().decode(FaultsBody.self, from: body)
        } catch {
            throw ControlBody.syntaxMessage(for: error, form: FaultsBody.forms).map {
                FaultRuleError(field: "", message: $0)
            }
                ?? FaultRuleError(field: error.path, message: error.message)
        }
        return try decoded.rules(nowMilliseconds: nowMilliseconds)
    }
}

/// The `GET` and `POST /v1/faults` answers: statuses with counters, or the rules just added.
private struct FaultList<Item: Encodable>: Encodable {
    let faults: [Item]
    /// Left out when nil.
    var rollingRestart: RollingRestartRun.Status? = nil
}
