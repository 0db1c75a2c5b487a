/// How many records a verification expects (`POST /v1/verify`, docs/testing.md): exactly,
/// at least or at most a number; "never" is at most 0. MockServer's `VerificationTimes` and
/// WireMock's count matchers are the models.
public enum ExpectedCount: Sendable, Equatable {
    /// Exactly this many.
    case exactly(Int)
    /// This many or more.
    case atLeast(Int)
    /// This many or fewer (`atMost(0)`: never).
    case atMost(Int)

    /// Whether `matched` records settle the verification: true (passed), false (failed), or nil
    /// when it is not settled yet and a verification with time left keeps watching. `final`
    /// is the last look (no time left): nothing is unsettled then.
    ///
    /// - at least n: passes once n match; fails only at the end.
    /// - exactly n: passes when n match; fails at once past n (records are not taken back), or
    ///   at the end with fewer.
    /// - at most n: fails at once past n; passes only at the end (a watch for its whole time).
    public func verdict(matched: Int, final: Bool) -> Bool? {
        switch self {
        case .atLeast(let count):
            if matched >= count { return true }
        case .exactly(let count):
            if matched == count { return true }
            if matched > count { return false }
        case .atMost(let count):
            if matched > count { return false }
            if final { return true }
        }
        return final ? false : nil
    }

    /// Whether `matched` falls short of the count (at least or exactly n, fewer matched): the
    /// case in which the records that came closest say what went wrong. An at-most count never
    /// falls short.
    public func fallsShort(matched: Int) -> Bool {
        switch self {
        case .atLeast(let count), .exactly(let count): return matched < count
        case .atMost: return false
        }
    }

    /// For messages: `exactly 2`, `at least 1`, `at most 3`, `never`.
    public var description: String {
        switch self {
        case .exactly(let count): return "exactly \(count)"
        case .atLeast(let count): return "at least \(count)"
        case .atMost(0): return "never"
        case .atMost(let count): return "at most \(count)"
        }
    }

    /// The count and its noun for messages: `exactly 2 pushes`, `at least 1 push`, `at most 3
    /// pushes`, and `no push` for never (`expected no push matching ...`).
    public var pushes: String {
        if case .atMost(0) = self { return "no push" }
        return "\(description) \(noun)"
    }

    /// "push" or "pushes", as `description`'s number asks.
    public var noun: String {
        switch self {
        case .exactly(1), .atLeast(1), .atMost(1): return "push"
        default: return "pushes"
        }
    }
}
