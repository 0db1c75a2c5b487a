import APNsCore
import Devices

/// Devices, pushes and a step runner shared by the lifecycle tables (docs/device-model.md §2).
/// Times are written relative to `t0`; events render as `"<id> <state> @<seconds after t0>"`.
enum LifecycleFixture {
    static let t0: Double = 1_700_000_000
    static let token = String(repeating: "ab", count: 32)
    static let topic = "com.example.app"

    static func device(_ change: (inout VirtualDevice) -> Void = { _ in }) -> VirtualDevice {
        var device = VirtualDevice(token: token, topic: topic)
        change(&device)
        return device
    }

    /// An alert push; `expiresIn` seconds after t0 (0 gives `apns-expiration: 0`).
    static func alert(
        _ id: UInt64, priority: Int = 10, expiresIn: Double? = nil, collapse: String? = nil,
        body: String = #"{"aps":{"alert":"hi"}}"#
    ) -> DevicePush {
        DevicePush(
            id: id, pushType: .alert, priority: priority, expiration: expiration(expiresIn), collapseID: collapse,
            body: Array(body.utf8))
    }

    /// A background push (`content-available: 1` only, priority 5).
    static func background(_ id: UInt64, expiresIn: Double? = nil) -> DevicePush {
        DevicePush(
            id: id, pushType: .background, priority: 5, expiration: expiration(expiresIn),
            body: Array(#"{"aps":{"content-available":1}}"#.utf8))
    }

    static func expiration(_ seconds: Double?) -> Int64? {
        seconds.map { $0 == 0 ? 0 : Int64(t0 + $0) }
    }

    /// One step of a table row; `at` in seconds after t0.
    enum Step {
        case push(DevicePush, at: Double)
        case connectivity(Connectivity, at: Double)
        case app(AppState, at: Double)
        case advance(Double)
        /// `DeviceLifecycle.update(_:at:)` with the device as `change` leaves it.
        case update(@Sendable (inout VirtualDevice) -> Void, at: Double)
    }

    /// Runs `steps` on a fresh lifecycle and renders every event returned.
    static func run(
        _ device: VirtualDevice, options: DeviceModelOptions = DeviceModelOptions(), _ steps: [Step]
    ) -> (events: [String], lifecycle: DeviceLifecycle) {
        var lifecycle = DeviceLifecycle(device: device, options: options)
        var events: [LifecycleEvent] = []
        for step in steps {
            switch step {
            case .push(let push, let at): events += lifecycle.receive(push, at: t0 + at)
            case .connectivity(let value, let at): events += lifecycle.setConnectivity(value, at: t0 + at)
            case .app(let state, let at): events += lifecycle.setAppState(state, at: t0 + at)
            case .advance(let at): events += lifecycle.advance(to: t0 + at)
            case .update(let change, let at):
                var device = lifecycle.device
                change(&device)
                events += try! lifecycle.update(device, at: t0 + at)
            }
        }
        return (events.map(render), lifecycle)
    }

    static func render(_ event: LifecycleEvent) -> String {
        let state: String
        switch event.state {
        case .received: state = "received"
        case .delivered(let fromStorage): state = fromStorage ? "delivered-from-storage" : "delivered"
        case .stored(let cause): state = "stored-\(cause.rawValue)"
        case .discarded(let cause, let fromStorage):
            state = "discarded-\(cause.rawValue)" + (fromStorage ? "-from-storage" : "")
        case .replaced(let by): state = "replaced-by-\(by)"
        }
        let seconds = event.at - t0
        let time = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return "\(event.notification) \(state) @\(time)" + (event.replaced.map { " replacing \($0)" } ?? "")
    }
}
