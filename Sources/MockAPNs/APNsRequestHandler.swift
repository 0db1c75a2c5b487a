import APNsAuth
import APNsCore
import Broadcast
import Configuration
import Devices
import Faults
import Foundation
import Gateway
import HTTP2Transport
import HTTPFields
import Recording
import SystemSupport

/// Connects the HTTP/2 transport to the `Gateway`: converts each complete request to a
/// `HTTP2Request`, hands it to `Gateway.handle` with the connection's `ConnectionCredentials`
/// (APNsAuth) and stream-profile state, and carries out the one `PushDecision` it returns (the
/// profile's SETTINGS change, then the plan through `FaultExecutor`, or the answer). Also records
/// connection events: opened, closed, listener conditions, and, through the
/// `ConnectionActionPerformer`, the idle timeout's and shutdown's GOAWAY or reset.
final class APNsRequestHandler: HTTP2RequestHandler {
    /// One entry per listener, in the transport's listener order.
    struct Listener: Sendable {
        var name: String
        var environment: APNsEnvironment
        /// How credentials are checked on this listener.
        var authMode: AuthMode
    }

    private let gateway: Gateway
    /// Channel management and broadcast sends (docs/broadcast.md), on every provider listener.
    private let broadcast: BroadcastService
    /// Per-listener conditions for new connections (handshake delay, silence, refusal).
    let conditions: ListenerConditionsInForce
    /// The listeners, in the transport's order.
    let listeners: [Listener]
    /// Where connection events go.
    let events: ConnectionEventRecorder
    /// Carries out and records GOAWAY, close, reset, SETTINGS and window stalls.
    let actions: ConnectionActionPerformer
    private let keys: KeyStore
    private let clock: ServerClock
    /// The virtual devices; an accepted push to one runs its lifecycle (`deliverToDevice`).
    private let devices: DeviceBook
    private let profile: StreamProfile
    /// How long answers took (`GET /metrics`, `mock_apns_answer_latency_seconds`).
    let answerLatency = AnswerLatencyHistogram()
    private let logger: Logger
    private let debug: Bool
    /// The journal's sync before answers leave (`--journal-sync always`), or nil.
    let answerDurability: (any AnswerDurability)?

    init(
        gateway: Gateway, broadcast: BroadcastService, listeners: [Listener], events: ConnectionEventStore,
        keys: KeyStore, clock: ServerClock, devices: DeviceBook, profile: StreamProfile, logger: Logger,
        answerDurability: (any AnswerDurability)? = nil
    ) {
        self.answerDurability = answerDurability
        self.devices = devices
        self.broadcast = broadcast
        self.gateway = gateway
        conditions = ListenerConditionsInForce(listeners: listeners.map { ($0.name, $0.environment) })
        self.listeners = listeners
        self.events = ConnectionEventRecorder(store: events, listeners: listeners, logger: logger)
        actions = ConnectionActionPerformer(events: self.events)
        self.keys = keys
        self.clock = clock
        self.profile = profile
        self.logger = logger
        debug = LogLevel.debug <= logger.level
    }

    // MARK: Connection lifecycle

    /// The listener's conditions decide (docs/field-cases.md C15); the real clock, not the token clock.
    func admit(listenerIndex: Int) -> HTTP2Admission {
        guard let current = conditions.conditions(of: listeners[listenerIndex].name) else { return .proceed(delay: 0) }
        switch current.admission(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)) {
        case .proceed(let delay): return .proceed(delay: Double(delay) / 1000)
        case .silent: return .silent
        case .refuse: return .refuse
        }
    }

    /// Token connections under `apple-observed` start at one stream until a push is accepted
    /// (Apple, *Sending notification requests to APNs*; docs/apns-behaviour.md §4).
    func settings(for connection: HTTP2Connection, proposed: HTTP2Settings) -> HTTP2Settings {
        let state = state(of: connection)
        let credentials = state.credentials
        if let presented = connection.info.clientCertificate {
            credentials.adoptCertificate(
                der: presented.der, verified: presented.verified, verifyError: presented.verifyError)
            connection.decideOnHeaders = credentials.mode != .none && credentials.certificateRejection != nil
        }
        guard profile == .appleObserved else { return proposed }
        let lowered = credentials.certificate == nil
        state.streamProfile = StreamProfileState(listenerLimit: proposed.maxConcurrentStreams, lowered: lowered)
        guard lowered else { return proposed }
        var settings = proposed
        settings.maxConcurrentStreams = 1
        return settings
    }

    /// The connection's state, made (and kept in `context`) by `settings(for:proposed:)`,
    /// which runs before any request.
    private func state(of connection: HTTP2Connection) -> ConnectionContext {
        if let state = connection.context as? ConnectionContext { return state }
        let listener = listeners[connection.info.listenerIndex]
        let state = ConnectionContext(
            listener: listener,
            info: PushOrigin(
                id: connection.info.id, listener: listener.name, environment: listener.environment,
                peer: connection.info.peer),
            credentials: ConnectionCredentials(
                mode: listener.authMode, environment: listener.environment, keys: keys, clock: clock))
        connection.context = state
        return state
    }

    /// A connection whose certificate is rejected gets its GOAWAY at the first HEADERS, before
    /// any DATA is read (docs/field-cases.md C2); the request is recorded with what had arrived.
    func headersReceived(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action? {
        handle(&request, on: connection)
    }

    func connectionOpened(_ connection: HTTP2Connection) {
        events.record(
            .opened(
                alpn: connection.info.alpn, tls: connection.info.tls,
                maxConcurrentStreams: connection.announcedMaxConcurrentStreams),
            origin: .lifecycle, on: connection)
    }

    func connectionClosed(_ connection: HTTP2Connection) {
        gateway.faults.connectionClosed(id: connection.info.id)
        let age = Int64((HTTP2Connection.monotonicSeconds() - connection.acceptedAt) * 1000)
        events.record(
            .closed(requests: connection.requestCount, ageMilliseconds: age), origin: .lifecycle, on: connection)
    }

    /// Listener conditions met, idle timeouts and shutdown GOAWAYs, as connection events.
    func transportEvent(_ event: HTTP2TransportEvent, on connection: HTTP2Connection) {
        switch event {
        case .handshakeDelayed(let seconds):
            events.record(
                .handshakeDelay(milliseconds: Int64((seconds * 1000).rounded())), origin: .listenerCondition,
                on: connection)
        case .heldSilent:
            events.record(.silentAccept, origin: .listenerCondition, on: connection)
        case .idleGoAway(let last, let debugData):
            actions.recordDoneByTransport(
                .goaway(
                    errorCode: 0, lastStreamID: last, debugData: debugData, closeAfterMilliseconds: 0, thenBare: false),
                origin: .idleTimeout, on: connection)
        case .idleReset:
            actions.recordDoneByTransport(.close(reset: true, when: nil), origin: .idleTimeout, on: connection)
        case .idleBlackhole:
            actions.recordDoneByTransport(.blackhole, origin: .idleTimeout, on: connection)
        case .shutdownGoAway(let code, let last, let debugData):
            actions.recordDoneByTransport(
                .goaway(
                    errorCode: code, lastStreamID: last, debugData: debugData, closeAfterMilliseconds: nil,
                    thenBare: false), origin: .shutdown, on: connection)
        }
    }

    /// A push's stream ended without response HEADERS: its record (`tag` is its seq) says status
    /// 0 and why (`DeliveryStore.markUnanswered`), so it never claims more than the sender got.
    func streamEndedUnanswered(tag: UInt64, streamID: Int32, end: HTTP2StreamEnd, on connection: HTTP2Connection) {
        let cause = APNsRequestHandler.cause(of: end)
        if gateway.store.markUnanswered(seq: tag, cause: cause) && debug {
            logger.log(
                .debug,
                "connection \(connection.info.id) stream \(streamID) ended unanswered (\(cause.rawValue)); record \(tag)"
            )
        }
    }

    /// The record's word for how the transport saw a stream end.
    static func cause(of end: HTTP2StreamEnd) -> UnansweredCause {
        switch end {
        case .connectionClosed: .connectionClosed
        case .connectionReset: .connectionReset
        case .connectionClosedByPeer: .connectionClosedByClient
        case .aboveLastStreamID: .aboveLastStreamID
        case .resetByPeer: .streamResetByClient
        case .resetByServer: .streamResetByServer
        }
    }

    /// The accepted push recorded as `seq`, with `body`, as its virtual device receives it, with
    /// the device's token; nil when the token is no virtual device. Made from what validation
    /// already produced (the verdict's device token, push type, priority, expiration and collapse
    /// ID, kept by the connection's memo, and the payload's values read from the validation's
    /// `PayloadFacts`; docs/device-model.md §7): no record is decoded, the token is not read from
    /// the path again and the body's kinds are not judged again; the connection's previous body to
    /// a device is not read again at all. Call it before the connection's next push (the memo).
    private func devicePush(seq: UInt64, body: [UInt8], state: ConnectionContext) -> (DevicePush, String)? {
        let (verdict, facts) = state.memo.acceptedPush(body: body)
        guard let token = verdict.deviceToken, devices.contains(token) else { return nil }
        return (makeDevicePush(seq: seq, body: body, verdict: verdict, facts: facts, state: state), token)
    }

    /// The accepted push recorded as `seq` delivered to its virtual device now, if its token is
    /// one: as `devicePush`, with one lookup of the token (`DeviceBook.receive(token:_:)`).
    private func deliverToDevice(seq: UInt64, body: [UInt8], state: ConnectionContext) {
        let (verdict, facts) = state.memo.acceptedPush(body: body)
        guard let token = verdict.deviceToken else { return }
        devices.receive(token: token) {
            makeDevicePush(seq: seq, body: body, verdict: verdict, facts: facts, state: state)
        }
    }

    /// An accepted push-to-start Live Activity (`aps.event: start`) with `aps.input-push-channel`
    /// subscribes its virtual device to that channel when it is a live channel of the device's app
    /// in its environment (docs/broadcast.md §5; ActivityKit starts the activity on the channel);
    /// otherwise the gateway's lint said so (`PushToStart.lintCheck`). Reads the body only for a
    /// `liveactivity` push to a virtual device.
    private func subscribeByPushToStart(body: [UInt8], state: ConnectionContext) {
        let (verdict, _) = state.memo.acceptedPush(body: body)
        guard verdict.pushType == .liveactivity, let token = verdict.deviceToken,
            let device = devices.lifecycle(of: token)?.device, let id = PushToStart.channel(in: body),
            !device.channels.contains(id),
            broadcast.store.channel(id, bundleID: device.topic, environment: device.environment) != nil
        else { return }
        var subscribed = device
        subscribed.channels.append(id)
        _ = try? devices.put(subscribed)
    }

    private func makeDevicePush(
        seq: UInt64, body: [UInt8], verdict: ValidationResult, facts: PayloadFacts?, state: ConnectionContext
    ) -> DevicePush {
        var payload: DevicePayload?
        if let last = state.lastDevicePayload, UTF8Bytes.equal(last.body, body) {
            payload = last.payload
        } else {
            payload = facts.map { DevicePayload(body: body, facts: $0) } ?? DevicePayload(body: body)
            state.lastDevicePayload = (body, payload!)
        }
        return DevicePush(id: seq, verdict: verdict, body: body, payload: payload)
    }

    func connectionRefused(listenerIndex: Int, peer: String) {
        events.record(.refused, origin: .listenerCondition, listenerIndex: listenerIndex, connectionID: nil, peer: peer)
    }

    // MARK: Requests

    /// A channel-management or broadcast request (docs/broadcast.md §3, §4): `BroadcastService`
    /// decides, with the connection's credentials asked about the path's bundle ID
    /// (`BroadcastCredentialCheck`); a rejected certificate ends the connection as on
    /// `/3/device` (GOAWAY with the reason, no stream answer). Fault rules with a `kind` of
    /// `channel` or `broadcast` are asked once the request is judged, and before a create or
    /// delete changes the store (a request a fault answers changes nothing). Recorded before it
    /// is answered; the record is named on the stream (`tag`).
    private func handleBroadcast(
        _ request: inout HTTP2Request, state: ConnectionContext, on connection: HTTP2Connection
    ) -> HTTP2Action {
        let credentials = state.credentials
        var endsConnection: BroadcastReason?
        var identity: CredentialIdentity?
        var fault: FaultDecision?
        var faultsAsked = false
        let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        let sent = request
        let faults = gateway.faults
        func askFaults(_ partial: BroadcastAnswer) {
            faultsAsked = true
            guard faults.isArmed else { return }
            fault = faults.evaluate(
                FaultContext(
                    verdict: Self.verdict(of: sent, answer: partial), request: sent, connection: state.info,
                    identity: identity, nowMilliseconds: nowMilliseconds))
        }
        let answer = broadcast.handle(
            sent, environment: state.info.environment, nowMilliseconds: Int64(clock.now() * 1000),
            authorize: { bundleID in
                let outcome = BroadcastCredentialCheck.check(credentials, request: sent, bundleID: bundleID)
                if outcome.closesConnection { endsConnection = outcome.reason }
                identity = outcome.identity
                return outcome.reason
            },
            proceed: { partial in
                askFaults(partial)
                return fault.map { Gateway.answersNormally($0.action) } ?? true
            })
        if !faultsAsked && endsConnection == nil { askFaults(answer) }
        let plan = fault.map { ActionPlan($0.action, streamID: request.streamID) }
        var response = HTTP2Response(status: answer.status)
        response.headers = answer.headers
        response.body = answer.body
        var status = endsConnection == nil ? answer.status : 0
        var reason = answer.reason?.apnsReason
        switch plan?.answer {
        case .replaced(let replaced)?:
            status = replaced.status
            reason = replaced.reason
            response = HTTP2Response(status: replaced.status)
            response.headers = [
                HeaderField(name: "content-type", value: "application/json"),
                HeaderField(name: "apns-request-id", value: answer.requestID),
            ]
            response.body = ReasonJSON.bytes(replaced.reason)
        case .none?:
            status = 0
            reason = nil
        case .normal?, nil:
            break
        }
        credentials.settle(accepted: status / 100 == 2)
        // A held answer's record is pending until its HEADERS is serialized.
        let pending =
            plan?.delayMilliseconds != nil && status != 0 ? PendingAnswer(status: status, reason: reason) : nil
        let seq = recordBroadcast(
            request, answer: answer, status: pending == nil ? status : 0, reason: pending == nil ? reason : nil,
            identity: identity, fault: fault, state: state)
        request.tag = seq
        if status == 201, answer.route?.operation == .createChannel, let id = answer.channelID {
            broadcast.store.noteCreated(id, bySeq: seq)
        }
        if status == 200, answer.route?.operation == .sendBroadcast, let channel = answer.channel {
            fanOut(seq: seq, request: request, answer: answer, channel: channel)
        }
        if debug {
            logger.log(
                .debug,
                "connection \(state.info.id) stream \(request.streamID) \(request.method) \(request.path) -> \(status) \(reason?.rawValue ?? "") (record \(seq))"
            )
        }
        if let ended = endsConnection?.apnsReason {
            return FaultExecutor.carryOut(
                .endConnection(ended), answer: response, streamID: request.streamID, on: connection,
                origin: .certificate, actions: actions)
        }
        guard let plan, let fault else { return .respond(response) }
        let store = gateway.store
        var whenAnswered: (@Sendable () -> Void)?
        if let pending { whenAnswered = { _ = store.markAnswered(seq: seq, as: pending) } }
        let origin = ConnectionEventOrigin.fault(ruleID: fault.ruleID, action: fault.ruleActionType)
        return FaultExecutor.carryOut(
            plan, answer: response, streamID: request.streamID, on: connection, origin: origin, actions: actions,
            whenAnswered: whenAnswered)
    }

    /// A broadcast accepted as record `seq` reaches the virtual devices subscribed to `channel`
    /// (docs/broadcast.md §5), each with its own lifecycle; the channel's storage policy says how
    /// long an offline device's copy is kept (`BroadcastOptions.storedMessageSeconds`, or nothing).
    private func fanOut(seq: UInt64, request: HTTP2Request, answer: BroadcastAnswer, channel: Channel) {
        guard !devices.isEmpty else { return }
        let limit: Double? =
            channel.storagePolicy == .mostRecentMessageStored ? Double(broadcast.options.storedMessageSeconds) : nil
        devices.fanOut(
            DeviceBroadcast(
                seq: seq, channelID: channel.id, priority: answer.priority ?? 10, expiration: answer.expiration,
                storageLimitSeconds: limit, body: request.body))
    }

    /// The verdict a channel or broadcast request is recorded and matched with: the path's
    /// bundle ID as its topic, `apns-push-type` as sent, a send's push type (liveactivity),
    /// priority, expiration and lints, and the service's reason.
    private static func verdict(of request: HTTP2Request, answer: BroadcastAnswer?) -> ValidationResult {
        ValidationResult(
            reason: answer?.reason?.apnsReason, topic: answer?.route?.bundleID,
            pushTypeSent: request.headers.first(where: { $0.name == "apns-push-type" })?.value,
            pushType: answer?.route?.operation == .sendBroadcast ? .liveactivity : nil, priority: answer?.priority,
            expiration: answer?.expiration, lints: answer?.lints.map(\.message) ?? [])
    }

    /// Appends the record of a channel or broadcast request (kind `channel` or `broadcast`):
    /// what arrived, `verdict(of:answer:)`, the answer's `apns-request-id` as `apnsId`, and
    /// `status` (0: no answer, or not yet) and `reason`. Returns its seq.
    private func recordBroadcast(
        _ request: HTTP2Request, answer: BroadcastAnswer?, status: Int, reason: Reason?,
        identity: CredentialIdentity?, fault: FaultDecision? = nil, state: ConnectionContext
    ) -> UInt64 {
        let record = DeliveryRecord(
            receivedAt: Date().timeIntervalSince1970, environment: state.info.environment,
            listener: state.info.listener, connectionID: state.info.id, streamID: request.streamID,
            method: request.method, path: request.path, verdict: Self.verdict(of: request, answer: answer),
            apnsID: answer?.requestID ?? "", uniqueID: nil, headers: AuthorizationRedaction.recorded(request.headers),
            payload: request.body, payloadBytes: request.bodyLength, status: status, reason: reason,
            identity: identity,
            fault: fault.map { FaultRecord(ruleID: $0.ruleID, action: $0.ruleActionType, description: $0.description) })
        return gateway.store.append(record)
    }

    /// The rest of a batch after a close, reset or blackhole was decided: recorded without a
    /// status and with no fault rule asked (`Gateway.handle(serve: false)`), nothing carried out;
    /// its stream ends unanswered with the connection, which names the cause in the record.
    func requestNotServed(_ request: inout HTTP2Request, on connection: HTTP2Connection) {
        let state = state(of: connection)
        // A channel or broadcast request: recorded without a status, nothing carried out.
        if BroadcastRoute.claims(request.path) {
            request.tag = recordBroadcast(request, answer: nil, status: 0, reason: nil, identity: nil, state: state)
            return
        }
        let decision = gateway.handle(
            request, connection: state.info, streamID: request.streamID,
            defaultTopic: state.credentials.defaultTopic, memo: state.memo, credentials: state.credentials,
            streamProfile: &state.streamProfile, serve: false)
        request.tag = decision.seq
        if debug {
            logger.log(
                .debug,
                "connection \(state.info.id) stream \(request.streamID) \(request.method) \(request.path) not served: the connection ends (record \(decision.seq))"
            )
        }
    }

    /// Counts an answer handed to the transport now, of a request handed to `handle` at `started`.
    @inline(__always)
    private func observeAnswer(since started: UInt64) {
        answerLatency.observe(nanoseconds: APNsRequestHandler.nanoseconds(since: started))
    }

    /// Nanoseconds from `started` (`MonotonicClock.nanoseconds()`) to now.
    @inline(__always)
    static func nanoseconds(since started: UInt64) -> UInt64 {
        MonotonicClock.nanoseconds() &- started
    }

    /// Hands the request to `Gateway.handle` and carries out its `PushDecision`: the stream
    /// profile's SETTINGS change, then the plan (`FaultExecutor`), or the answer.
    func handle(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action {
        let started = MonotonicClock.nanoseconds()
        let state = state(of: connection)
        // The one check a device push pays for the channel and broadcast paths (`/1/`, `/4/`).
        if BroadcastRoute.claims(request.path) { return handleBroadcast(&request, state: state, on: connection) }
        let streamID = request.streamID
        let described = debug ? "\(request.method) \(request.path)" : ""
        // Read before the handing over below, which leaves `request` holding the previous push.
        let deviceBody = devices.isEmpty ? nil : request.body
        // The transport's request is the domain's: handed over as it is, no copy or conversion.
        // The memo keeps it, and `request` comes back as the connection's push before it, whose
        // body's storage the transport reuses.
        var decision = gateway.handle(
            taking: &request, connection: state.info, streamID: streamID,
            defaultTopic: state.credentials.defaultTopic, memo: state.memo, credentials: state.credentials,
            streamProfile: &state.streamProfile)
        // The record is named on the stream: if it ends unanswered, `streamEndedUnanswered` corrects it.
        request.tag = decision.seq
        // A push answered 200 reaches its virtual device, if it has one (one check otherwise).
        // An answer held by a delay reaches the device only once it is sent (below): a push the
        // sender never got an answer for never reached the device either (docs/device-model.md §7).
        let forHeld: (DevicePush, String)?
        if decision.accepted, let body = deviceBody, decision.pendingAnswer != nil {
            forHeld = devicePush(seq: decision.seq, body: body, state: state)
        } else {
            if decision.accepted, let body = deviceBody { deliverToDevice(seq: decision.seq, body: body, state: state) }
            forHeld = nil
        }
        if decision.accepted, let body = deviceBody { subscribeByPushToStart(body: body, state: state) }
        if debug {
            logger.log(
                .debug,
                "connection \(state.info.id) stream \(streamID) \(described) -> \(decision.response.status) (record \(decision.seq))"
            )
        }
        if let limit = decision.streamLimitChange {
            actions.perform(.settings(maxConcurrentStreams: limit), origin: .streamProfile, on: connection)
        }
        // The decision's arrays are moved into the answer, not copied.
        var answer = HTTP2Response(status: decision.response.status)
        swap(&answer.headers, &decision.response.headers)
        swap(&answer.body, &decision.response.body)
        answer.uuidHeaders = decision.response.uuidHeaders
        // Nothing to wait for and nothing done to the connection (every push without a fault).
        if case .none = decision.plan.connection, decision.plan.delayMilliseconds == nil {
            if case .answer = decision.plan.stream { observeAnswer(since: started) }
            return FaultExecutor.streamAction(decision.plan.stream, answer: consume answer)
        }
        if case .answer = decision.plan.stream, decision.plan.delayMilliseconds == nil { observeAnswer(since: started) }
        // A held answer's record is pending until its HEADERS is serialized (issue 13).
        let devices = self.devices
        let whenAnswered = decision.pendingAnswer.map { pending -> @Sendable () -> Void in
            let store = gateway.store
            let seq = decision.seq
            let answerLatency = self.answerLatency
            return {
                answerLatency.observe(nanoseconds: APNsRequestHandler.nanoseconds(since: started))
                store.markAnswered(seq: seq, as: pending)
                if let (push, token) = forHeld { devices.receive(push, token: token) }
            }
        }
        return FaultExecutor.carryOut(
            decision.plan, answer: answer, streamID: streamID, on: connection,
            origin: decision.connectionOrigin, actions: actions, whenAnswered: whenAnswered)
    }
}
