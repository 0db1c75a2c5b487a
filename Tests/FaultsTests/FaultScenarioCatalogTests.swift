import XCTest

@testable import Faults
@testable import JSONInput

/// The words on each scenario (`FaultScenario+Catalog`, `GET /v1/fault-scenarios`): every
/// scenario and parameter described, and every example a body the scenario takes.
final class FaultScenarioCatalogTests: XCTestCase {
    func testEveryScenarioAndParameterIsDescribed() {
        for scenario in FaultScenario.allCases {
            XCTAssertFalse(scenario.summary.isEmpty, scenario.rawValue)
            XCTAssertEqual(scenario.parameterDescriptions.map(\.name), scenario.parameterNames, scenario.rawValue)
            for parameter in scenario.parameterDescriptions {
                XCTAssertFalse(parameter.description.isEmpty, "\(scenario.rawValue).\(parameter.name)")
            }
        }
    }

    func testEveryExampleIsABodyTheScenarioTakes() throws {
        for scenario in FaultScenario.allCases {
            guard case .object(let body) = scenario.example,
                body["scenario"] == .string(scenario.rawValue), case .object(let parameters)? = body["parameters"]
            else {
                XCTFail("\(scenario.rawValue): \(scenario.example)")
                continue
            }
            XCTAssertEqual(Set(body.keys), ["scenario", "parameters"])
            if scenario == .rollingRestart {
                XCTAssertNoThrow(try RollingRestart(parameters: parameters))
            } else {
                XCTAssertFalse(try FaultScenario.rules(named: scenario.rawValue, parameters: parameters).isEmpty)
            }
        }
    }
}
