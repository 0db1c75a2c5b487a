import ControlAPI
import HTTP2Transport

/// Serves the control API's live streams (`GET /v1/deliveries/stream`, `GET /v1/events/stream`;
/// README "Live stream") on the control loop: one timer for every open stream, which finds new
/// records by the stores' generation check the long polls use (no thread per consumer), writes
/// them as chunks while the stream's unsent output is under the budget's bound, sends
/// heartbeats, and cuts off a consumer whose output stays at the bound with records waiting
/// (it stopped reading), so that a slow consumer costs the pushes nothing.
final class LiveStreamHub: @unchecked Sendable {
    private let api: ControlAPI
    private let loop: EventLoop
    /// The bound on each stream's unsent output.
    let budget: StreamBudget
    /// Streams open at once; one more is answered 503.
    let maxStreams: Int
    /// Streams open at once on one isolated gateway (its share of `maxStreams`, README "Live
    /// stream"): max(4, maxStreams / 4), never above `maxStreams`; one more is answered 503, so
    /// that one gateway's consumers cannot take every stream. The server's own API has no share.
    var perGatewayStreams: Int { Self.perGatewayShare(of: maxStreams) }
    /// Seconds a cut-off or ended stream's consumer may take nothing before it is disconnected.
    let lingerSeconds: Double

    private struct OpenStream {
        var stream: ControlStream
        /// The API it was asked of (the server's, or an isolated gateway's): its stores feed it.
        let api: ControlAPI
        let response: HTTP1ResponseStream
        /// Monotonic seconds of the last write (for heartbeats).
        var lastWrite: Double
        /// Since when the output has been at the budget's bound with records waiting; nil when not.
        var fullSince: Double?
    }

    private var streams: [Int: OpenStream] = [:]
    private var nextID = 0
    /// The id of the last stream a tick wrote records to: the next tick starts after it.
    private var lastServed = 0
    private var tick: LoopTimer?

    /// Streams open now; on the loop's thread.
    var openCount: Int { streams.count }

    /// Streams open now read from `api`; on the loop's thread.
    func openCount(of api: ControlAPI) -> Int { streams.values.reduce(0) { $0 + ($1.api === api ? 1 : 0) } }

    /// One isolated gateway's share of `maxStreams` open streams: max(4, maxStreams / 4), at most `maxStreams`.
    static func perGatewayShare(of maxStreams: Int) -> Int { min(max(0, maxStreams), max(4, maxStreams / 4)) }

    init(
        api: ControlAPI, loop: EventLoop, budget: StreamBudget = StreamBudget(),
        maxStreams: Int = StreamBudget.defaultMaxStreams, lingerSeconds: Double = 30
    ) {
        self.api = api
        self.loop = loop
        self.budget = budget
        self.maxStreams = max(0, maxStreams)
        self.lingerSeconds = lingerSeconds
    }

    /// Opens `stream` on `exchange`, or answers 503 when `maxStreams` are open. Records already
    /// stored after its position are written at once (one step: `recordsPerStep`), the rest by the ticks.
    /// `api` is the API that answered the request (the server's, or an isolated gateway's), whose
    /// stores the stream reads.
    func open(
        _ stream: ControlStream, from api: ControlAPI, on exchange: HTTP1Exchange,
        headers: [(name: String, value: String)]
    ) {
        guard streams.count < maxStreams else {
            exchange.respond(
                status: 503, headers: headers,
                body: Array(
                    #"{"error":"too many live streams open (at most \#(maxStreams)); close one and retry"}"#.utf8))
            return
        }
        if api !== self.api, openCount(of: api) >= perGatewayStreams {
            exchange.respond(
                status: 503, headers: headers,
                body: Array(
                    #"{"error":"too many live streams open on this gateway (at most \#(perGatewayStreams) of the server's \#(maxStreams)); close one and retry"}"#
                        .utf8))
            return
        }
        guard let response = exchange.startStream(contentType: stream.format.contentType, headers: headers) else {
            return
        }
        var entry = OpenStream(
            stream: stream, api: api, response: response, lastWrite: HTTP2Connection.monotonicSeconds())
        // A first heartbeat gets the headers out at once, so a client sees the stream open.
        response.write(StreamFrames.heartbeat(stream.format, lastSeq: stream.position.scanned))
        guard serve(&entry, now: entry.lastWrite, records: Self.recordsPerStep).open else { return }
        nextID += 1
        streams[nextID] = entry
        scheduleTick()
    }

    /// Ends every stream with its `end` message (the server is stopping); on the loop's thread.
    func endAll() {
        tick?.cancel()
        tick = nil
        for (_, entry) in streams { end(entry, reason: "server stopping") }
        streams.removeAll()
    }

    /// Ends the streams read from `api` (a deleted isolated gateway's) with their `end` message;
    /// on the loop's thread.
    func endAll(of api: ControlAPI) {
        for (id, entry) in streams where entry.api === api {
            end(entry, reason: "gateway deleted")
            streams.removeValue(forKey: id)
        }
    }

    private func end(_ entry: OpenStream, reason: String) {
        guard entry.response.isOpen else { return }
        entry.response.write(
            StreamFrames.end(entry.stream.format, lastSeq: entry.stream.position.scanned, reason: reason))
        entry.response.finish(lingerSeconds: 1)
    }

    /// Records one serve step writes to one stream at most (README "Live stream"): one step per
    /// stream per pass, so that N streams with a backlog cost the loop N small steps per pass,
    /// not N times the output bound, and other control calls are answered in between.
    static let recordsPerStep = 100
    /// Bytes a tick writes across every stream at most: passes go round the streams (starting
    /// where the last tick stopped) until this is spent or none has more; the rest is the next
    /// tick's. One step may go over it by its own size.
    static let bytesPerTick = 1 << 20

    /// What one serve step did.
    private struct Step {
        /// False when the stream is over (gone or cut off).
        var open: Bool
        /// Bytes of records written.
        var bytes: Int = 0
        /// True when the stream has records left to write now (it is under the bound).
        var more: Bool = false
    }

    /// One step for `entry`: the cutoff and heartbeat checks, then (when `records` > 0) at most
    /// `records` new records while the output is under the bound.
    private func serve(_ entry: inout OpenStream, now: Double, records: Int) -> Step {
        guard entry.response.isOpen else {
            entry.response.finish(lingerSeconds: 0)
            return Step(open: false)
        }
        switch budget.decide(unsentBytes: entry.response.unsentBytes, fullSince: entry.fullSince, now: now) {
        case .cutOff:
            entry.response.write(StreamFrames.cutoff(entry.stream.format, lastSeq: entry.stream.position.scanned))
            entry.response.finish(lingerSeconds: lingerSeconds)
            return Step(open: false)
        case .wait:
            if entry.fullSince == nil && entry.api.streamMayHaveMore(entry.stream) { entry.fullSince = now }
            return Step(open: true)
        case .write:
            entry.fullSince = nil
            var step = Step(open: true)
            if records > 0 {
                let messages = entry.api.streamMessages(&entry.stream, limit: records)
                if !messages.isEmpty {
                    entry.response.write(messages)
                    entry.lastWrite = now
                    step.bytes = messages.count
                }
                step.more = entry.stream.hasMore
            } else {
                step.more = entry.api.streamMayHaveMore(entry.stream)
            }
            if !step.more && now - entry.lastWrite >= ControlStream.heartbeatSeconds {
                entry.response.write(
                    StreamFrames.heartbeat(entry.stream.format, lastSeq: entry.stream.position.scanned))
                entry.lastWrite = now
            }
            return step
        }
    }

    /// One tick: every stream gets a step (in turn from where the last tick stopped), then
    /// passes go on over the streams with more until `bytesPerTick` is spent. Returns the bytes
    /// of records written; on the loop's thread.
    @discardableResult
    func serveTick(now: Double) -> Int {
        let ids = streams.keys.sorted()
        guard !ids.isEmpty else { return 0 }
        let start = ids.firstIndex { $0 > lastServed } ?? 0
        var pending = Array(ids[start...] + ids[..<start])
        var spent = 0
        var firstPass = true
        while !pending.isEmpty {
            var next: [Int] = []
            for id in pending {
                guard var entry = streams[id] else { continue }
                let records = spent < Self.bytesPerTick ? Self.recordsPerStep : 0
                if records == 0 && !firstPass { break }
                let step = serve(&entry, now: now, records: records)
                if records > 0 { lastServed = id }
                spent += step.bytes
                if step.open {
                    streams[id] = entry
                    if step.more { next.append(id) }
                } else {
                    streams.removeValue(forKey: id)
                }
            }
            firstPass = false
            pending = spent < Self.bytesPerTick ? next : []
        }
        return spent
    }

    private func scheduleTick() {
        guard tick == nil, !streams.isEmpty else { return }
        tick = loop.schedule(after: ControlServer.pollInterval) { [weak self] in
            guard let self else { return }
            self.tick = nil
            self.serveTick(now: HTTP2Connection.monotonicSeconds())
            self.scheduleTick()
        }
    }
}
