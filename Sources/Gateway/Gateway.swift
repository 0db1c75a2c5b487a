import APNsCore
import Faults
import Foundation
import HTTPFields
import Recording

/// The application behind every APNs listener: validates a request, records it, and returns
/// the APNs response. Thread-safe; called from every worker thread at once.
///
/// No response leaves before its record is stored: `handle` appends, then returns.
public final class Gateway: Sendable {
    /// Where records go.
    public let store: DeliveryStore
    /// Known devices.
    public let registry: DeviceRegistry
    /// The validation knobs.
    public let options: ValidationOptions
    /// Fault rules, consulted for every push once validation and authentication are done.
    public let faults: FaultEngine
    private let clock: @Sendable () -> Double
    private let makeID: (@Sendable (_ uppercase: Bool) -> String)?
    /// A lint for a valid Live Activity push (its body, verdict and the listener's
    /// environment), or nil: a push-to-start naming no channel of its app (`PushToStart`,
    /// docs/broadcast.md §5). Asked only when the push type is `liveactivity`.
    private let pushToStartLint: (@Sendable ([UInt8], ValidationResult, APNsEnvironment) -> String?)?
    /// Makes the IDs when no `makeID` was given; it also says their bits (`CompactRecordTemplate`).
    private let generator = UUIDGenerator()

    /// - Parameters:
    ///   - clock: now, in seconds since the Unix epoch (tests inject a fixed one).
    ///   - makeID: a new UUID string, upper- or lowercase, for generated `apns-id` and
    ///     `apns-unique-id` values.
    ///   - pushToStartLint: a lint for a valid `liveactivity` push, or nil (default: none).
    public init(
        store: DeliveryStore, registry: DeviceRegistry, options: ValidationOptions, faults: FaultEngine = FaultEngine(),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        makeID: (@Sendable (_ uppercase: Bool) -> String)? = nil,
        pushToStartLint: (@Sendable ([UInt8], ValidationResult, APNsEnvironment) -> String?)? = nil
    ) {
        self.pushToStartLint = pushToStartLint
        self.store = store
        self.registry = registry
        self.options = options
        self.faults = faults
        self.clock = clock
        self.makeID = makeID
    }

    /// Decides, records and answers one request, checking no credentials (tests, and listeners
    /// without checks): `handle(_:connection:streamID:defaultTopic:memo:credentials:streamProfile:)`.
    public func handle(
        _ request: HTTP2Request, connection: PushOrigin, streamID: Int32, defaultTopic: String? = nil,
        memo: PreviousRequest? = nil
    ) -> PushDecision {
        var noProfile: StreamProfileState?
        return handle(
            request, connection: connection, streamID: streamID, defaultTopic: defaultTopic, memo: memo,
            credentials: NoCredentialCheck.shared, streamProfile: &noProfile)
    }

    /// Decides, records and answers one request, in one pass: validation, the credential check,
    /// fault rules, the record, and what all of it does to the stream, the connection, the
    /// credential state and the stream profile.
    /// - Parameters:
    ///   - defaultTopic: the topic when `apns-topic` is absent (a single-topic client certificate).
    ///   - memo: the connection's previous request (see `PreviousRequest`): a repeated body is not
    ///     parsed again, a repeated device token not checked again, a repeated header list not
    ///     redacted again; `nil` does everything.
    ///   - credentials: the connection's credential check (`CredentialChecker`), given what
    ///     validation parsed; told whether the push was accepted before this returns. Its reason
    ///     ranks after method and path (405, 404, MissingDeviceToken) and before every other
    ///     check (docs/apns-behaviour.md §9, order of checks). Generic, not an existential: no
    ///     box per push.
    ///   - streamProfile: the connection's `apple-observed` stream profile, nil when the
    ///     listener has none; moved on by the push's acceptance (`PushDecision.streamLimitChange`).
    ///   - serve: false for a request that arrived after its connection's end was decided (the
    ///     rest of a batch after a close, reset or blackhole; issue 13): it is validated and
    ///     recorded without a status (the transport reports how its stream ended), no fault
    ///     rule sees it, and it is not accepted; the decision is not carried out.
    /// - Returns: everything decided (`PushDecision`).
    public func handle<Credentials: CredentialChecker>(
        _ request: HTTP2Request, connection: PushOrigin, streamID: Int32, defaultTopic: String? = nil,
        memo: PreviousRequest? = nil, credentials: Credentials, streamProfile: inout StreamProfileState?,
        serve: Bool = true
    ) -> PushDecision {
        let decision = decide(
            request, connection: connection, streamID: streamID, defaultTopic: defaultTopic, memo: memo,
            credentials: credentials, streamProfile: &streamProfile, serve: serve)
        memo?.keep(request)
        return decision
    }

    /// `handle(_:connection:streamID:defaultTopic:memo:credentials:streamProfile:)` for a request
    /// the caller gives up: the memo keeps it as the connection's previous push without copying
    /// it, and `request` is left holding the push before it (`PreviousRequest.keep(taking:)`; an
    /// empty request before the first), or itself when the memo keeps none (a repeat, or no
    /// memo); read what is needed of the request before the call. The
    /// transport's handler calls this one: a copy of every push's request and a destroy of it
    /// less (bench/README.md).
    public func handle<Credentials: CredentialChecker>(
        taking request: inout HTTP2Request, connection: PushOrigin, streamID: Int32, defaultTopic: String? = nil,
        memo: PreviousRequest? = nil, credentials: Credentials, streamProfile: inout StreamProfileState?
    ) -> PushDecision {
        let decision = decide(
            request, connection: connection, streamID: streamID, defaultTopic: defaultTopic, memo: memo,
            credentials: credentials, streamProfile: &streamProfile, serve: true)
        memo?.keep(taking: &request)
        return decision
    }

    /// The one pass of both `handle` methods; the memo, told of the push, is left for the caller
    /// to end it (`PreviousRequest.keep`), which each does before returning.
    private func decide<Credentials: CredentialChecker>(
        _ request: HTTP2Request, connection: PushOrigin, streamID: Int32, defaultTopic: String?,
        memo: PreviousRequest?, credentials: Credentials, streamProfile: inout StreamProfileState?, serve: Bool
    ) -> PushDecision {
        let now = clock()
        let registry = self.registry
        // Read before validating: a registry change made meanwhile shows as a new generation.
        let registryGeneration = registry.generation
        var verdict: ValidationResult
        if let repeated = memo?.repeatedVerdict(
            of: request, environment: connection.environment, defaultTopic: defaultTopic,
            registryGeneration: registryGeneration, nowMilliseconds: Int64(now * 1000))
        {
            verdict = repeated
        } else {
            verdict = RequestValidator.validate(
                request, environment: connection.environment, options: options,
                nowMilliseconds: Int64(now * 1000), defaultTopic: defaultTopic,
                memo: memo, lookup: { registry.lookup($0) })
            if verdict.pushType == .liveactivity, verdict.reason == nil, let pushToStartLint,
                let lint = pushToStartLint(request.body, verdict, connection.environment)
            {
                verdict.lints.append(lint)
            }
            memo?.remember(
                request, environment: connection.environment, defaultTopic: defaultTopic,
                registryGeneration: registryGeneration, verdict: verdict)
        }
        var identity: CredentialIdentity?
        var connectionEnds = false
        if let result = credentials.check(verdict, of: request) {
            identity = result.identity
            if let reason = result.reason, !Gateway.outranksAuthentication(verdict.reason) {
                verdict.reason = reason
                verdict.timestamp = nil
                connectionEnds = result.closesConnection
            }
        }
        // Apple generates uppercase apns-id values; apns-unique-id is lowercase (docs/apns-behaviour.md §9).
        // Read once (each read of a verdict's text retains it).
        let sentAPNsID = verdict.apnsID
        let apnsID = sentAPNsID.map { ResponseID.text($0) } ?? newID(uppercase: true)
        let uniqueID = connection.environment == .sandbox ? newID(uppercase: false) : nil
        // A connection-ending reason is sent in GOAWAY, not on the stream: the record says no status.
        var answer = Answer(
            status: connectionEnds ? 0 : verdict.status, reason: verdict.reason, timestamp: verdict.timestamp)
        var fault: FaultDecision?
        var plan = ActionPlan(answer: .normal, stream: .answer)
        if connectionEnds { plan = .endConnection(verdict.reason ?? .badCertificate) }
        if !serve {
            answer = Answer(status: 0, reason: nil, timestamp: nil)
            verdict.timestamp = nil
        } else if faults.isArmed && !connectionEnds {
            fault = faults.evaluate(
                FaultContext(
                    verdict: verdict, request: request, connection: connection,
                    identity: identity, nowMilliseconds: Int64(now * 1000)))
            if let fault {
                plan = ActionPlan(fault.action, streamID: streamID)
                switch plan.answer {
                case .normal:
                    break
                case .replaced(let response):
                    answer = Answer(status: response.status, reason: response.reason, timestamp: response.timestamp)
                    verdict.timestamp = answer.timestamp  // the record's `timestamp` is the one answered
                case .none:
                    answer = Answer(status: 0, reason: nil, timestamp: nil)
                    verdict.timestamp = nil
                }
            }
        }
        // Accepted: answered 200 as the gateway answers (a fault's answer is never 200).
        let accepted = answer.status == 200
        credentials.settle(accepted: accepted)
        // A connection the credential check ends gets its GOAWAY and no SETTINGS change.
        let streamLimit = connectionEnds ? nil : streamProfile?.change(accepted: accepted)
        let recordedReason = answer.status == 200 ? nil : answer.reason
        // A delayed answer is pending: its record says no status until its HEADERS is serialized
        // (`PushDecision.pendingAnswer`, `DeliveryStore.markAnswered`). Always a fault's, so
        // never a repeated record.
        let pendingAnswer =
            plan.delayMilliseconds != nil && answer.status != 0
            ? PendingAnswer(status: answer.status, reason: recordedReason) : nil
        let seq: UInt64
        // A push repeating the previous one without a fault: its record is the previous record
        // with the per-push fields rewritten (`CompactRecordTemplate`).
        let apnsIDGenerated = sentAPNsID == nil
        if let memo, fault == nil,
            let repeated = memo.appendRepeatedRecord(
                to: store, connectionID: connection.id, environment: connection.environment,
                status: answer.status, reason: recordedReason,
                labels: PushLabels(
                    listener: connection.listener, environment: connection.environment, pushType: verdict.pushType,
                    priority: verdict.priority),
                identity: identity, apnsIDGenerated: apnsIDGenerated, receivedAt: now, streamID: streamID,
                apnsID: apnsID, uniqueID: uniqueID, request: request)
        {
            seq = repeated
        } else {
            let headers = memo?.recorded(request.headers) ?? AuthorizationRedaction.recorded(request.headers)
            // With a memo and no fault the record only goes to the encoder, which takes generated
            // IDs as bits: their text is not spelled (the record carries an empty placeholder).
            let encodesBits = memo != nil && fault == nil
            var ids = CompactRecord.GeneratedIDs()
            if encodesBits, case .uuid(let bits) = apnsID { ids.apnsID = bits }
            if encodesBits, case .uuid(let bits)? = uniqueID { ids.uniqueID = bits }
            let record = DeliveryRecord(
                receivedAt: now, environment: connection.environment, listener: connection.listener,
                connectionID: connection.id, streamID: streamID, method: request.method,
                path: request.path, verdict: verdict, apnsID: ids.apnsID == nil ? apnsID.text : "",
                uniqueID: ids.uniqueID == nil ? uniqueID?.text : "",
                headers: headers, payload: request.body, payloadBytes: request.bodyLength,
                status: pendingAnswer == nil ? answer.status : 0,
                reason: pendingAnswer == nil ? recordedReason : nil, identity: identity,
                fault: fault.map {
                    FaultRecord(ruleID: $0.ruleID, action: $0.ruleActionType, description: $0.description)
                })
            if let memo, fault == nil {
                let key = PreviousRequest.RecordKey(
                    connectionID: connection.id, environment: connection.environment,
                    status: answer.status, reason: recordedReason, identity: identity,
                    apnsIDGenerated: apnsIDGenerated)
                seq = store.append(encoding: record, ids: ids) { bytes, landmarks, seq in
                    memo.remember(record: bytes, landmarks: landmarks, key: key, seq: seq)
                }
            } else {
                seq = store.append(record)
            }
        }
        return PushDecision(
            response: ResponseBuilder.response(
                reason: answer.status == 200 ? nil : answer.reason,
                timestamp: answer.timestamp, apnsID: apnsID, uniqueID: uniqueID,
                status: answer.status == 0 ? nil : answer.status),
            plan: plan, seq: seq, accepted: accepted, fault: fault,
            connectionEndReason: connectionEnds ? verdict.reason : nil, streamLimitChange: streamLimit,
            pendingAnswer: pendingAnswer)
    }

    /// A new ID: text from `makeID` when one was given; else a UUID's bits from the generator.
    private func newID(uppercase: Bool) -> ResponseID {
        if let makeID { return .text(makeID(uppercase)) }
        return .uuid(generator.nextBits(uppercase: uppercase))
    }

    /// True when `action` leaves the push to be answered as it would have been: the stream's
    /// result is the gateway's own (`ActionPlan.answersNormally` of its plan; only then can a
    /// push be accepted, `PushDecision.accepted`).
    public static func answersNormally(_ action: FaultAction) -> Bool {
        ActionPlan(action, streamID: 1).answersNormally
    }

    /// What the stream is answered: status (0 for no answer), reason and 410 timestamp.
    struct Answer {
        var status: Int
        var reason: Reason?
        var timestamp: Int64?
    }

    /// Method and path problems are answered before credentials are looked at.
    static func outranksAuthentication(_ reason: Reason?) -> Bool {
        reason == .methodNotAllowed || reason == .badPath || reason == .missingDeviceToken
    }
}
