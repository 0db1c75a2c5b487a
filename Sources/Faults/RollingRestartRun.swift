/// A `rolling-restart` that has started: which connections it will send away and which it has
/// already (issue 13). `GET /v1/faults` shows it while a GOAWAY is still to come, and
/// `DELETE /v1/faults` cancels it, so a restart left over from one test cannot reach the
/// connections of the next.
///
/// JSON (`GET /v1/faults` → `rollingRestart`): `{"seed": 7, "windowMs": 10000, "drainMs": 5000,
/// "elapsedMs": 812, "connections": [{"id": 1, "goawayAfterMs": 8675, "done": false}, ...]}`.
public struct RollingRestartRun: Sendable, Equatable {
    /// The scenario's parameters.
    public let restart: RollingRestart
    /// The connections open when it started, ascending by id.
    public let connectionIDs: [UInt64]
    /// The connections whose moment has come: drained, or found closed already.
    public private(set) var done: Set<UInt64> = []

    public init(restart: RollingRestart, connectionIDs: [UInt64]) {
        self.restart = restart
        self.connectionIDs = connectionIDs
    }

    /// True while some connection's GOAWAY is still to come.
    public var inProgress: Bool { connectionIDs.contains { !done.contains($0) } }

    /// Notes that connection `id`'s moment came (its drain started, or it had closed).
    public mutating func markDone(_ id: UInt64) {
        if connectionIDs.contains(id) { done.insert(id) }
    }

    /// The answer's shape, with the milliseconds since the start.
    public func status(elapsedMilliseconds: Int64) -> Status {
        Status(
            seed: restart.seed, windowMilliseconds: restart.windowMilliseconds,
            drainMilliseconds: restart.drainMilliseconds, elapsedMilliseconds: elapsedMilliseconds,
            connections: connectionIDs.map {
                .init(
                    id: $0, goawayAfterMilliseconds: restart.delayMilliseconds(forConnection: $0),
                    done: done.contains($0))
            })
    }

    /// What `GET /v1/faults` shows of a rolling restart in progress.
    public struct Status: Sendable, Equatable, Encodable {
        public var seed: UInt64
        public var windowMilliseconds: Int64
        public var drainMilliseconds: Int64
        /// Milliseconds since it started.
        public var elapsedMilliseconds: Int64
        public var connections: [Connection]

        /// One connection it sends away: when (milliseconds from the start), and whether that
        /// moment has come.
        public struct Connection: Sendable, Equatable, Encodable {
            public var id: UInt64
            public var goawayAfterMilliseconds: Int64
            public var done: Bool

            enum CodingKeys: String, CodingKey {
                case id
                case goawayAfterMilliseconds = "goawayAfterMs"
                case done
            }
        }

        enum CodingKeys: String, CodingKey {
            case seed
            case windowMilliseconds = "windowMs"
            case drainMilliseconds = "drainMs"
            case elapsedMilliseconds = "elapsedMs"
            case connections
        }
    }
}
