import JSONSupport
import Recording

/// The live streams `GET /v1/deliveries/stream` and `GET /v1/events/stream` (README "Live
/// stream"): the same filters as the lists, `after` or `Last-Event-ID` to resume, `format` or
/// `accept` to choose SSE or NDJSON.
extension ControlAPI {
    /// `GET /v1/deliveries/stream`.
    func startDeliveryStream(_ request: ControlRequest, _ query: [String: String]) throws(ControlError)
        -> ControlResult
    {
        let filter = withChannelCreate(try DeliveryFilter(query: query))
        return .stream(
            ControlStream(
                source: .deliveries(filter),
                format: try StreamFormat.requested(format: query["format"], accept: request.accept),
                position: try StreamPosition(after: filter.after, lastEventID: request.header("last-event-id"))))
    }

    /// `GET /v1/events/stream`.
    func startEventStream(_ request: ControlRequest, _ query: [String: String]) throws(ControlError)
        -> ControlResult
    {
        let filter = try ConnectionEventFilter(query: query)
        return .stream(
            ControlStream(
                source: .events(filter),
                format: try StreamFormat.requested(format: query["format"], accept: request.accept),
                position: try StreamPosition(after: filter.after, lastEventID: request.header("last-event-id"))))
    }

    /// The stream's next messages: a gap message when records it had not yet sent are no
    /// longer stored, then at most `limit` matching records after its position, oldest first;
    /// empty when there is nothing new. Advances the position past what it returns. Cheap to
    /// call every few milliseconds: an unchanged store `generation` (and no batch left over)
    /// returns at once without a lock.
    public func streamMessages(_ stream: inout ControlStream, limit: Int = ControlStream.batchLimit) -> [UInt8] {
        switch stream.source {
        case .deliveries(var filter):
            let generation = store.generation
            if generation == stream.seenGeneration && !stream.hasMore { return [] }
            filter.after = stream.position.scanned
            let result = store.compactQuery(filter, limit: max(1, limit))
            var out: [UInt8] = []
            if let gap = stream.position.takeGap(firstSeq: result.firstSeq, lastSeq: result.lastSeq) {
                out = StreamFrames.gap(stream.format, gap)
            }
            if !result.elements.isEmpty {
                let join = recordJoin(result.elements.map(\.seq))
                if let messages = DeliveryListJSON.streamMessages(
                    records: result.elements, format: stream.format, join: join)
                {
                    out += messages
                }
            }
            finish(&stream, more: result.more, lastElement: result.elements.last?.seq, lastSeq: result.lastSeq)
            if !stream.hasMore { stream.seenGeneration = generation }
            return out
        case .events(var filter):
            let generation = events.generation
            if generation == stream.seenGeneration && !stream.hasMore { return [] }
            filter.after = stream.position.scanned
            let result = events.query(filter, limit: max(1, limit))
            var out: [UInt8] = []
            if let gap = stream.position.takeGap(firstSeq: result.firstSeq, lastSeq: result.lastSeq) {
                out = StreamFrames.gap(stream.format, gap)
            }
            for event in result.events {
                out += StreamFrames.record(
                    stream.format, event: StreamFrames.connectionEvent, seq: event.seq,
                    json: ControlResponse(status: 200, encoding: event).body)
            }
            finish(&stream, more: result.more, lastElement: result.events.last?.seq, lastSeq: result.lastSeq)
            if !stream.hasMore { stream.seenGeneration = generation }
            return out
        }
    }

    /// True when the stream may have records to send: a batch was left over, or its store
    /// changed since it last looked (the long polls' generation check; no lock).
    public func streamMayHaveMore(_ stream: ControlStream) -> Bool {
        if stream.hasMore { return true }
        switch stream.source {
        case .deliveries: return store.generation != stream.seenGeneration
        case .events: return events.generation != stream.seenGeneration
        }
    }

    /// Moves the position: to the last record returned when more are left, else to `lastSeq`
    /// (every record up to it was looked at).
    private func finish(_ stream: inout ControlStream, more: Bool, lastElement: UInt64?, lastSeq: UInt64) {
        stream.hasMore = more
        if more, let lastElement {
            stream.position.advance(to: lastElement)
        } else {
            stream.position.advance(to: lastSeq)
        }
    }
}
