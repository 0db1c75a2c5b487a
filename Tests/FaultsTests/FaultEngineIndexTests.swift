import APNsCore
import Synchronization
import XCTest

@testable import Faults
@testable import TestFixtures

/// The rule index (`FaultEngineState`): the same decisions, counters and listings as trying every
/// rule, and the cap on the number of rules.
final class FaultEngineIndexTests: XCTestCase {
    typealias F = FaultFixture

    /// Now, for the engines' `clock`: advanced with the pushes, as the wall clock is.
    final class Clock: Sendable {
        let now = Atomic<Int64>(FaultFixture.now)
    }

    static let tokens = [
        String(repeating: "ab", count: 32), String(repeating: "cd", count: 32), String(repeating: "ef", count: 32),
    ]

    /// A random rule over a few tokens, topics and listeners, with counting conditions,
    /// lifetimes and actions that keep state (sequences, rate limits, sick connections).
    static func randomRule(_ random: inout SplitMix64) -> String {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func chance(_ share: Double) -> Bool { random.nextUnit() < share }
        var match: [String] = []
        if chance(0.5) {
            let token = pick(tokens)
            match.append(#""token":"\#(chance(0.3) ? token.uppercased() : token)""#)
        }
        if chance(0.15) { match.append(#""tokenPrefix":"\#(pick(["ab", "cd", "e"]))""#) }
        if chance(0.4) { match.append(#""topic":"\#(pick(["com.a", "com.b", "com.c"]))""#) }
        if chance(0.4) { match.append(#""listener":"\#(pick(["sandbox", "production"]))""#) }
        if chance(0.2) { match.append(#""priority":\#(pick([5, 10]))"#) }
        if chance(0.2) { match.append(#""connection":\#(pick([1, 2, 3]))"#) }
        if chance(0.15) { match.append(#""nth":\#(pick([1, 2, 4]))"#) }
        if chance(0.15) { match.append(#""everyKth":\#(pick([2, 3]))"#) }
        if chance(0.2) { match.append(#""probability":0.5,"seed":\#(random.next() % 1000)"#) }
        // A rule matching every push for good would hide the rest: rare.
        if match.isEmpty && chance(0.8) { match.append(#""connection":\#(pick([1, 2, 3]))"#) }
        let lifetime = pick([
            "", #","lifetime":{"times":2}"#, #","lifetime":{"timesPerConnection":1}"#,
            #","lifetime":{"until":\#(F.now + 40)}"#,
        ])
        let action = pick([
            #"{"type":"respond","reason":"ServiceUnavailable"}"#, #"{"type":"respond","reason":"BadDeviceToken"}"#,
            #"{"type":"respond","status":410,"reason":"Unregistered"}"#,
            #"{"type":"sequence","steps":["pass",{"type":"respond","reason":"TooManyRequests"},"pass"]}"#,
            #"{"type":"rateLimit","perSecond":1,"burst":2}"#,
            #"{"type":"sickConnection","reason":"InternalServerError"}"#,
            #"{"type":"noResponse"}"#,
        ])
        return #"{"match":{\#(match.joined(separator: ","))}\#(lifetime),"action":\#(action)}"#
    }

    func testTheIndexDecidesAsTryingEveryRuleDoes() throws {
        var decided = 0
        var pushes = 0
        for seed in UInt64(1)...40 {
            var random = SplitMix64(seed: seed)
            let clock = Clock()
            let now: @Sendable () -> Int64 = { clock.now.load(ordering: .relaxed) }
            let indexed = FaultEngine(maxRules: 1000, usesIndex: true, clock: now)
            let naive = FaultEngine(maxRules: 1000, usesIndex: false, clock: now)
            for _ in 0..<Int(3 + random.next() % 30) {
                let rule = try FaultRule.decode(json: Array(Self.randomRule(&random).utf8))
                XCTAssertEqual(try indexed.add(rule), try naive.add(rule))
            }
            for step in 0..<300 {
                let pick = { (count: Int) in Int(random.next() % UInt64(count)) }
                var token: String? = Self.tokens[pick(3)]
                if pick(5) == 0 { token = token?.uppercased() }
                if pick(10) == 0 { token = String(repeating: "99", count: 32) }
                if pick(20) == 0 { token = nil }
                let time = F.now + Int64(step / 4)
                clock.now.store(time, ordering: .relaxed)
                let context = F.context(
                    token: token, topic: pick(8) == 0 ? nil : ["com.a", "com.b", "com.c", "com.d"][pick(4)],
                    priority: [5, 10][pick(2)], listener: ["sandbox", "production", "other"][pick(3)],
                    connection: UInt64(1 + pick(3)), now: time)
                let decision = indexed.evaluate(context)
                XCTAssertEqual(decision, naive.evaluate(context), "seed \(seed), push \(step)")
                if decision != nil { decided += 1 }
                pushes += 1
                if pick(40) == 0 {
                    let id = "f\(1 + pick(30))"
                    XCTAssertEqual(indexed.remove(id: id), naive.remove(id: id))
                }
                if pick(30) == 0 {
                    let connection = UInt64(1 + pick(3))
                    indexed.connectionClosed(id: connection)
                    naive.connectionClosed(id: connection)
                }
            }
            XCTAssertEqual(indexed.rules(), naive.rules(), "seed \(seed): the same counters")
            XCTAssertLessThanOrEqual(indexed.tries, naive.tries)
        }
        XCTAssertGreaterThan(decided, pushes / 10, "a fair share of pushes get a fault")
        XCTAssertLessThan(decided, pushes * 9 / 10, "and a fair share do not")
    }

    func testRulesForOtherTokensTopicsAndListenersAreNotTried() throws {
        let engine = F.engine()
        for index in 0..<2000 {
            let token = String(format: "%064x", index)
            try engine.add(F.rule(#"{"match":{"token":"\#(token)"},"action":{"type":"noResponse"}}"#)!)
        }
        try engine.add(F.rule(#"{"match":{"topic":"com.other"},"action":{"type":"noResponse"}}"#)!)
        try engine.add(F.rule(#"{"match":{"token":"\#(F.token)"},"action":{"type":"respond","reason":"BadTopic"}}"#)!)
        XCTAssertEqual(F.statuses(engine, [F.context(), F.context(token: F.otherToken)]), [400, nil])
        XCTAssertEqual(engine.tries, 1, "only the rule filed under the push's token is tried")
        let statuses = engine.rules()
        XCTAssertEqual(statuses.last?.matched, 1)
        XCTAssertEqual(statuses.reduce(0) { $0 + $1.matched }, 1)
    }

    func testTheEarliestRuleWinsAcrossIndexedAndUnindexedRules() throws {
        let engine = F.engine(
            #"{"match":{"listener":"sandbox"},"action":{"type":"sequence","steps":["pass",{"type":"noResponse"}]}}"#,
            #"{"match":{"priority":10},"action":{"type":"respond","reason":"BadPriority"}}"#,
            #"{"match":{"topic":"com.example.app"},"action":{"type":"respond","reason":"BadTopic"}}"#,
            #"{"match":{"token":"\#(F.token)"},"action":{"type":"respond","reason":"BadDeviceToken"}}"#)
        XCTAssertEqual(F.statuses(engine, [F.context(), F.context()]), [400, 0])
        XCTAssertEqual(engine.rules().map(\.matched), [2, 1, 0, 0])
        XCTAssertTrue(engine.remove(id: "f2"))
        XCTAssertEqual(engine.evaluate(F.context())?.ruleID, "f3", "after a removal the index follows the order")
        XCTAssertTrue(engine.remove(id: "f3"))
        XCTAssertEqual(engine.evaluate(F.context(token: F.token.uppercased()))?.ruleID, "f4")
    }

    func testAddingBeyondTheCapIsRefusedWhole() throws {
        let engine = FaultEngine(maxRules: 3, clock: { F.now })
        let rule = F.rule(#"{"action":{"type":"noResponse"}}"#)!
        try engine.add(contentsOf: [rule, rule])
        XCTAssertThrowsError(try engine.add(contentsOf: [rule, rule])) { error in
            XCTAssertEqual(
                (error as? FaultRuleError)?.description,
                "too many fault rules: 2 held, 2 more would exceed the limit of 3 (--max-fault-rules); remove some first"
            )
        }
        XCTAssertEqual(engine.rules().count, 2, "all or none")
        try engine.add(rule)
        XCTAssertThrowsError(try engine.add(rule))
        engine.removeAll()
        try engine.add(rule)
        XCTAssertEqual(FaultEngine().maxRules, 10_000)
    }
}
