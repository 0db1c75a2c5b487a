import Foundation
import Synchronization

/// Decides, for each push, whether a fault rule applies and what it does (issue "Fault
/// injection"; docs/field-cases.md C1-C16). Thread-safe: called from every worker thread at once.
///
/// Rules are kept in the order added; for each push the engine first checks whether the push's
/// connection was made sick (then that answer applies), else the first rule whose conditions
/// all hold and that yields a fault applies. A rule that matches without a fault (a `pass`
/// step, a push under its rate limit) lets the next rules try.
///
/// Hot path: with no live rule and no sick connection, `evaluate` is one relaxed atomic load.
/// Otherwise a push is tried only against the rules that could match it: those whose `token`,
/// `topic` or `listener` is the push's, and those naming none of these (`FaultEngineState`), so
/// rules for other devices cost a dictionary lookup, not a try each.
public final class FaultEngine: Sendable {
    private let state: Mutex<FaultEngineState>
    /// Mirrors `FaultEngineState.armedCount` so `evaluate` can skip the lock when it is 0.
    private let armed = Atomic<Int>(0)
    private let clock: @Sendable () -> Int64

    /// The most rules an engine holds at once unless told otherwise: 10,000.
    public static let defaultMaxRules = 10_000

    /// The most rules held at once: `add` refuses more (`defaultMaxRules` unless set).
    public let maxRules: Int

    /// - Parameters:
    ///   - maxRules: the most rules held at once (at least 1); an `add` beyond it throws.
    ///   - clock: now, in milliseconds since the Unix epoch; used to report rules whose
    ///     `until` lifetime has passed as spent in `rules()`, and as the start of a rule's
    ///     `probabilityRamp` when it is added. Evaluation uses the context's time.
    public convenience init(
        maxRules: Int = FaultEngine.defaultMaxRules,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.init(maxRules: maxRules, usesIndex: true, clock: clock)
    }

    /// - Parameter usesIndex: false to try every rule for every push (tests compare the two).
    init(maxRules: Int, usesIndex: Bool, clock: @escaping @Sendable () -> Int64) {
        self.maxRules = max(1, maxRules)
        self.state = Mutex(FaultEngineState(maxRules: max(1, maxRules), usesIndex: usesIndex))
        self.clock = clock
    }

    /// True when some rule may still fire or a connection is sick. When false, `evaluate`
    /// returns nil: callers may skip building the context.
    public var isArmed: Bool { armed.load(ordering: .relaxed) > 0 }

    /// Appends a rule, after validating it.
    /// - Returns: the rule as stored: `id` assigned (`f1`, `f2`, ...) when absent, `match.seed`
    ///   picked when it has a `probability` and no seed, token and header names lowercased.
    /// - Throws: `FaultRuleError` for an invalid rule, an id already in use, or one rule more
    ///   than `maxRules`.
    @discardableResult
    public func add(_ rule: FaultRule) throws(FaultRuleError) -> FaultRule {
        try add(contentsOf: [rule])[0]
    }

    /// Appends rules in order, all or none (configuration files, scenarios). An error's field
    /// is prefixed with the rule's index, e.g. `[1].action.status`. Throws, adding none, when
    /// the rules held and these would be more than `maxRules`.
    @discardableResult
    public func add(contentsOf rules: [FaultRule]) throws(FaultRuleError) -> [FaultRule] {
        try state.withLock { (state: inout FaultEngineState) throws(FaultRuleError) -> [FaultRule] in
            guard state.rules.count + rules.count <= maxRules else {
                throw FaultRuleError(
                    field: "",
                    message:
                        "too many fault rules: \(state.rules.count) held, \(rules.count) more would exceed the limit of "
                        + "\(maxRules) (--max-fault-rules); remove some first")
            }
            // On a copy, so a failure leaves the id counter untouched too.
            var draft = state
            var prepared: [FaultRule] = []
            var taken: Set<String> = []
            for (index, rule) in rules.enumerated() {
                let ready = try draft.prepare(rule, taken: taken, path: rules.count == 1 ? "" : "[\(index)]")
                prepared.append(ready)
                taken.insert(ready.id ?? "")
            }
            let now = clock()
            for rule in prepared { draft.append(rule, now: now) }
            state = draft
            publish(state)
            return prepared
        }
    }

    /// Removes the rule `id`, and heals the connections it made sick.
    /// - Returns: false when there is no such rule.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { state in
            defer { publish(state) }
            return state.remove(id: id)
        }
    }

    /// Removes every rule and heals every sick connection.
    public func removeAll() {
        state.withLock { state in
            state.removeAll()
            publish(state)
        }
    }

    /// The rules in evaluation order, with their counters.
    public func rules() -> [FaultRuleStatus] {
        let now = clock()
        return state.withLock { $0.statuses(now: now) }
    }

    /// The fault for one push, or nil to answer it normally. Updates the applying rule's
    /// counters (and, for sequences, its step; for rate limits, the token's bucket).
    public func evaluate(_ context: FaultContext) -> FaultDecision? {
        // Relaxed: a push racing with `add` may miss the new rule, as it would a moment earlier.
        guard armed.load(ordering: .relaxed) > 0 else { return nil }
        return state.withLock { state in
            let decision = state.evaluate(context)
            publish(state)
            return decision
        }
    }

    /// How many times a rule was tried against a push, in all (for tests of the index).
    var tries: UInt64 { state.withLock { $0.tries } }

    /// Forgets connection `id`: its sickness and its per-connection counts.
    public func connectionClosed(id: UInt64) {
        guard armed.load(ordering: .relaxed) > 0 else { return }
        state.withLock { state in
            state.connectionClosed(id: id)
            publish(state)
        }
    }

    /// Called with the lock held, so the count never runs behind a later change.
    private func publish(_ state: FaultEngineState) {
        armed.store(state.armedCount, ordering: .relaxed)
    }
}
