import APNsCore
import Synchronization

/// The conditions in force per listener, by name; read on every accept, written by the control
/// API. Thread-safe.
public final class ListenerConditionsInForce: Sendable {
    private let conditions: Mutex<[String: ListenerConditions]>
    /// Listener names in configuration order, and their environments, for listing.
    public let listeners: [(name: String, environment: APNsEnvironment)]

    /// A board where every listener accepts normally.
    public init(listeners: [(name: String, environment: APNsEnvironment)]) {
        self.listeners = listeners
        conditions = Mutex(Dictionary(uniqueKeysWithValues: listeners.map { ($0.name, ListenerConditions()) }))
    }

    /// The conditions of `listener`, or nil for an unknown name.
    public func conditions(of listener: String) -> ListenerConditions? {
        conditions.withLock { $0[listener] }
    }

    /// Replaces the conditions of `listener`. Returns false for an unknown name.
    @discardableResult
    public func set(_ new: ListenerConditions, for listener: String) -> Bool {
        conditions.withLock { all in
            guard all[listener] != nil else { return false }
            all[listener] = new
            return true
        }
    }
}
