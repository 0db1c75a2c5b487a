import JSONSupport

/// Where a live stream stands: every record numbered up to `scanned` has been looked at, and
/// sent when it matched. Pure logic (no store), so resume and gap rules are tested on their own.
public struct StreamPosition: Sendable, Equatable {
    /// The highest sequence number looked at (0: none yet).
    public private(set) var scanned: UInt64
    /// Whether records missing right after `scanned` are reported as a gap: true when the
    /// consumer named a position (`after` or `Last-Event-ID`), false for a stream that starts
    /// with whatever is stored (older records evicted before it opened are not its loss).
    public private(set) var reportsGap: Bool

    /// The starting position of a request: `Last-Event-ID` (an SSE reconnect) when given, else
    /// `after`, else 0 (every stored record first).
    /// - Throws: a 400 `ControlError` when `Last-Event-ID` is not a non-negative integer.
    public init(after: UInt64?, lastEventID: String?) throws(ControlError) {
        if let lastEventID, !lastEventID.isEmpty {
            guard let seq = UInt64(lastEventID.trimmingSpaces) else {
                throw .badRequest("Last-Event-ID must be a seq (a non-negative integer), got '\(lastEventID)'")
            }
            self.init(scanned: seq, reportsGap: true)
        } else if let after {
            self.init(scanned: after, reportsGap: true)
        } else {
            self.init(scanned: 0, reportsGap: false)
        }
    }

    /// A position at `scanned`.
    public init(scanned: UInt64, reportsGap: Bool) {
        self.scanned = scanned
        self.reportsGap = reportsGap
    }

    /// The records the stream lost, given the store now holds `firstSeq...lastSeq` (`firstSeq`
    /// is `lastSeq + 1` when it holds none): those after `scanned` and before `firstSeq`, nil
    /// when none were lost (or the stream does not report them). Moves `scanned` past them and,
    /// from then on, reports every later gap.
    public mutating func takeGap(firstSeq: UInt64, lastSeq: UInt64) -> ClosedRange<UInt64>? {
        defer { reportsGap = true }
        let missingEnd = min(firstSeq, lastSeq &+ 1)
        // Written so that no position (up to UInt64.max, which a client may name) overflows.
        guard missingEnd > 0, scanned < missingEnd - 1 else { return nil }
        let range = (scanned + 1)...(missingEnd - 1)
        scanned = missingEnd - 1
        return reportsGap ? range : nil
    }

    /// Records up to `seq` have been looked at; never goes back.
    public mutating func advance(to seq: UInt64) {
        scanned = max(scanned, seq)
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
