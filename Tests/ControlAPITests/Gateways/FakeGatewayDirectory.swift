import Synchronization
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// A `GatewayDirectory` without a transport: gateways are summaries in a list, each with an
/// empty `ControlAPI`.
final class FakeGatewayDirectory: GatewayDirectory {
    private let held = Mutex<[(GatewaySummary, ControlAPI)]>([])
    let maxGateways = 3

    /// A directory holding `count` gateways, `g1`…
    init(count: Int = 1) {
        for _ in 0..<count { _ = try? createGateway(GatewayBody()) }
    }

    static func summary(id: String) -> GatewaySummary {
        GatewaySummary(
            id: id, name: id, port: 40_000, url: "https://127.0.0.1:40000", environment: .sandbox,
            auth: "permissive", ttlSeconds: 600, maxRecords: 10, createdAt: 0, expiresAt: 600)
    }

    func createGateway(_ body: GatewayBody) throws(ControlError) -> GatewaySummary {
        try held.withLock { held throws(ControlError) in
            guard held.count < maxGateways else { throw ControlError(status: 429, message: "too many gateways") }
            var summary = Self.summary(id: "g\(held.count + 1)")
            if let name = body.name { summary.name = name }
            held.append(
                (
                    summary,
                    ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(devices: [])) {
                        ControlStatus(
                            version: "t", uptimeMilliseconds: 0, connectionsOpen: 0, listeners: [], workers: 1)
                    }
                ))
            return summary
        }
    }

    func gatewaySummaries() -> [GatewaySummary] { held.withLock { $0.map(\.0) } }

    func gatewaySummary(id: String) -> GatewaySummary? { held.withLock { $0.first { $0.0.id == id }?.0 } }

    func deleteGateway(id: String) -> Bool {
        held.withLock { held in
            guard let index = held.firstIndex(where: { $0.0.id == id }) else { return false }
            held.remove(at: index)
            return true
        }
    }

    func gatewayAPI(id: String) -> ControlAPI? { held.withLock { $0.first { $0.0.id == id }?.1 } }
}
