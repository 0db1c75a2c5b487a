import APNsCore
import Glibc
import HTTPFields
import Recording

/// What one connection's previous request looked like, so that a request repeating it skips work
/// whose result depends on the repeated bytes alone: validating the whole push, or parts of it
/// (parsing the body, checking the device token), redacting `authorization`, encoding its record.
///
/// Senders often push the same payload many times in a row (a campaign, a retry, a load test),
/// and a token-authenticated connection sends the same provider token for up to an hour. A
/// body's outcome (its `PayloadFacts`, or the parser's message) is a pure function of its bytes,
/// and parsing it is a large part of a push's cost (bench/README.md); a repeat costs one `memcmp`. A redacted token is a
/// pure function of the header value; a repeat reuses the redacted string. A repeated device
/// token reuses its checked, lowercased form. Anything different is computed as before and
/// replaces what is remembered.
///
/// A push that repeats the previous one as a whole (method, path, authority, headers, body, the
/// default topic) while the device registry is unchanged gets the previous verdict, since
/// validation is a pure function of those (`RequestValidator`); and when its credential identity,
/// answer and connection are the same too, its record is the previous record with the receive
/// time, stream id and generated IDs rewritten (`CompactRecordTemplate`). A push differing from
/// the previous one only in its device token, some header values and its payload (`Variant`) is
/// validated, and its record written from the previous record with those fields replaced.
/// bench/README.md has what each of these saves.
///
/// One per connection, used on that connection's thread only: not thread-safe. It keeps the last
/// body alive until the next one replaces it, and 4 KiB for yajl's parses (`PayloadScratch`). Being confined to one thread, its state is kept
/// without dynamic exclusivity checks. For variants it keeps a copy of the last record it wrote
/// (the model's bytes, a few hundred bytes plus the payload).
public final class PreviousRequest: ValidationMemo {
    @exclusivity(unchecked) private var body: [UInt8] = []
    /// yajl's memory for the connection's parses (`PayloadScratch`).
    private let scratch = PayloadScratch()
    @exclusivity(unchecked) private var outcome: PayloadInspector.Outcome?
    @exclusivity(unchecked) private var authorization: String?
    @exclusivity(unchecked) private var redactedAuthorization = ""
    @exclusivity(unchecked) private var rawHeaders: [HeaderField] = []
    @exclusivity(unchecked) private var recordedHeaders: [HeaderField] = []
    @exclusivity(unchecked) private var tokenText: String?
    @exclusivity(unchecked) private var tokenOptions: (exact: Int?, maximum: Int) = (nil, 0)
    @exclusivity(unchecked) private var normalizedToken: String?
    /// The last header checks made, and the fields and default topic they were made on.
    @exclusivity(unchecked) private var lastHeaderChecks: HeaderChecks?
    @exclusivity(unchecked) private var checkedFields: [HeaderField] = []
    @exclusivity(unchecked) private var checkedDefaultTopic: String?
    /// The previous push as a whole and its verdict (see `repeatedVerdict`); `hasLast` is false
    /// before the first and after a verdict that may depend on the time of the check.
    @exclusivity(unchecked) private var last = HTTP2Request(
        method: "", path: "", authority: nil, headers: [], body: [], bodyLength: 0)
    @exclusivity(unchecked) private var hasLast = false
    /// Set by `remember(_:...)`: the push being handled becomes `last` when it is done.
    @exclusivity(unchecked) private var lastPending = false
    @exclusivity(unchecked) private var lastDefaultTopic: String?
    @exclusivity(unchecked) private var lastEnvironment = APNsEnvironment.sandbox
    @exclusivity(unchecked) private var lastRegistryGeneration: UInt64 = 0
    /// The remembered verdict holds only before this moment (ms since the epoch): a device's
    /// `unregisteredAt` still to come when it was made. `Int64.max`: for good.
    @exclusivity(unchecked) private var lastVerdictUntil: Int64 = .max
    /// What `verdictHolds(until:)` said of the verdict being made, until `remember` takes it.
    @exclusivity(unchecked) private var pendingVerdictUntil: Int64 = .max
    @exclusivity(unchecked) private var lastVerdict = ValidationResult()
    /// The verdict `lastVerdict` replaced, kept for its text box (`takeSpareVerdict`).
    @exclusivity(unchecked) private var spareVerdict: ValidationResult?
    /// The template of the last stored record of `last` (nil when none), that record's sequence
    /// number, and what else the record depended on. Separate properties, so the key is compared
    /// in place: copying it out would retain each of its strings.
    @exclusivity(unchecked) private var template: CompactRecordTemplate?
    @exclusivity(unchecked) private var templateSeq: UInt64 = 0
    @exclusivity(unchecked) private var templateKey = RecordKey(
        connectionID: 0, environment: .sandbox, status: 0, reason: nil, identity: nil,
        apnsIDGenerated: false)
    /// The template's model: a copy of its bytes (a variant is written from them), a spare
    /// buffer the next model is written to, and whether `last` and `lastVerdict` are the model's
    /// request and verdict (a repeat of `last` is then a repeat of the model).
    @exclusivity(unchecked) private var modelBytes: [UInt8] = []
    @exclusivity(unchecked) private var spareBytes: [UInt8] = []
    @exclusivity(unchecked) private var modelIsLast = false
    /// Where a variant's fields lie in the model (nil until a model is kept).
    @exclusivity(unchecked) private var variantLayout: CompactRecordTemplate.VariantLayout?
    /// Set when `last` is a variant of the model (see `Variant`): what differs.
    @exclusivity(unchecked) private var variant: Variant?
    /// Records written as variants of the previous record.
    @exclusivity(unchecked) public private(set) var variantHits = 0
    /// Pushes whose verdict was the previous push's.
    @exclusivity(unchecked) public private(set) var verdictHits = 0
    /// Records written from the previous push's record.
    @exclusivity(unchecked) public private(set) var recordHits = 0
    /// Header checks reused instead of made (`headerChecks(of:defaultTopic:)`).
    @exclusivity(unchecked) public private(set) var headerCheckHits = 0
    /// Bodies answered from the memo instead of being parsed.
    @exclusivity(unchecked) public private(set) var payloadHits = 0
    /// `authorization` values whose redaction was reused.
    @exclusivity(unchecked) public private(set) var redactionHits = 0

    public init() {}

    /// The outcome of `body`: the remembered one when `body` has the same bytes as the last body
    /// seen, else `inspect(body)`, which is remembered.
    package func outcome(
        of body: [UInt8], inspect: ([UInt8], PayloadScratch) -> PayloadInspector.Outcome
    ) -> PayloadInspector.Outcome {
        if let outcome, UTF8Bytes.equal(body, self.body) {
            payloadHits += 1
            return outcome
        }
        let fresh = inspect(body, scratch)
        self.body = body
        outcome = fresh
        return fresh
    }

    /// What the validation of the push just handled (by `Gateway.handle`) judged, for a virtual
    /// device's lifecycle (docs/device-model.md §7), so that neither its record is decoded nor
    /// its body walked again: its verdict, and the kinds of its body (`PayloadFacts`) when `body`
    /// is the body last inspected and parsed as an object (nil otherwise). Meaningful only for a
    /// push answered 200: an accepted verdict has no 410 timestamp, so it was remembered (or was
    /// the remembered one repeated), and its body was inspected (or was the inspected one).
    package func acceptedPush(body: [UInt8]) -> (verdict: ValidationResult, facts: PayloadFacts?) {
        guard case .object(let facts)? = outcome, UTF8Bytes.equal(body, self.body) else { return (lastVerdict, nil) }
        return (lastVerdict, facts)
    }

    /// The header list to record for `headers` as received: `authorization` redacted (see
    /// `redacted(_:)`). When the previous request carried the same fields, its recorded list is
    /// returned and nothing is copied to redact (the transport reuses
    /// repeated header strings, so the comparison is mostly of identical storage).
    func recorded(_ headers: [HeaderField]) -> [HeaderField] {
        if UTF8Bytes.equal(headers, rawHeaders) { return recordedHeaders }
        rawHeaders = headers
        recordedHeaders = AuthorizationRedaction.recorded(headers, redact: redacted)
        return recordedHeaders
    }

    /// `DeviceTokenRule.normalized(text, options:)`, reused when `text` and the options repeat.
    package func normalizedToken(_ text: Substring, options: ValidationOptions) -> String? {
        UTF8Bytes.with(text) { normalizedToken($0, options: options) }
    }

    /// `DeviceTokenRule.normalized(utf8: text, options:)` for the token text's UTF-8 bytes,
    /// reused when `text` and the options repeat. The bytes are compared in place.
    package func normalizedToken(_ text: UnsafeBufferPointer<UInt8>, options: ValidationOptions) -> String? {
        if let tokenText, tokenOptions == (options.tokenLength, options.maxTokenLength),
            UTF8Bytes.with(tokenText, { UTF8Bytes.equal($0, text) })
        {
            return normalizedToken
        }
        let normalized = DeviceTokenRule.normalized(utf8: text, options: options)
        normalizedToken = normalized
        // A token sent in lowercase is its normalized form: keep that string, not a second copy.
        if let normalized, UTF8Bytes.with(normalized, { UTF8Bytes.equal($0, text) }) {
            tokenText = normalized
        } else {
            tokenText = String(decoding: text, as: UTF8.self)
        }
        tokenOptions = (options.tokenLength, options.maxTokenLength)
        return normalizedToken
    }

    /// `HeaderChecks(fields, defaultTopic:)`, reused when `fields` and `defaultTopic` repeat those
    /// last checked (`HeaderChecks.sameInput`: the same names, `apns-` values and default topic).
    package func headerChecks(of fields: [HeaderField], defaultTopic: String?) -> HeaderChecks {
        if let checks = lastHeaderChecks,
            HeaderChecks.sameInput(
                fields, defaultTopic: defaultTopic, as: checkedFields, defaultTopic: checkedDefaultTopic)
        {
            headerCheckHits += 1
            // The next push most likely carries this very list (the transport hands a repeated
            // block's list on as is): compared with it, identity answers at once.
            checkedFields = fields
            return checks
        }
        let checks = HeaderChecks(fields, defaultTopic: defaultTopic)
        lastHeaderChecks = checks
        checkedFields = fields
        checkedDefaultTopic = defaultTopic
        return checks
    }

    /// The verdict the last one replaced, moved out (`ValidationMemo.takeSpareVerdict`).
    package func takeSpareVerdict() -> ValidationResult? {
        spareVerdict.take()
    }

    /// Notes that the verdict being made holds only before `milliseconds`
    /// (`ValidationMemo.verdictHolds(until:)`), for `remember` to keep with it.
    package func verdictHolds(until milliseconds: Int64) {
        pendingVerdictUntil = min(pendingVerdictUntil, milliseconds)
    }

    /// `AuthorizationRedaction.redact(value)`, reused when `value` repeats the last one.
    func redacted(_ value: String) -> String {
        if let authorization, UTF8Bytes.equal(authorization, value) {
            redactionHits += 1
            return redactedAuthorization
        }
        redactedAuthorization = AuthorizationRedaction.redact(value)
        authorization = value
        return redactedAuthorization
    }

    /// The previous push's verdict when `request` repeats it byte for byte, for a listener of
    /// the same `environment`, with the same `defaultTopic`, the registry still at
    /// `registryGeneration` and `nowMilliseconds` before any moment the verdict held until
    /// (`verdictHolds(until:)`); nil otherwise (validate, then `remember`).
    func repeatedVerdict(
        of request: HTTP2Request, environment: APNsEnvironment, defaultTopic: String?,
        registryGeneration: UInt64, nowMilliseconds: Int64
    ) -> ValidationResult? {
        // `last` is read in place (no copy of the whole request out of an optional).
        guard hasLast, lastRegistryGeneration == registryGeneration, nowMilliseconds < lastVerdictUntil,
            lastEnvironment == environment,
            request.bodyLength == last.bodyLength,
            UTF8Bytes.equal(request.path, last.path), UTF8Bytes.equal(request.method, last.method),
            UTF8Bytes.equal(request.authority, last.authority), UTF8Bytes.equal(defaultTopic, lastDefaultTopic),
            UTF8Bytes.equal(request.headers, last.headers), UTF8Bytes.equal(request.body, last.body)
        else {
            return nil
        }
        verdictHits += 1
        return lastVerdict
    }

    /// Remembers `verdict` as what validating `request` gave with the registry at
    /// `registryGeneration` (read before validating). A verdict with a 410 `timestamp` is not
    /// kept: the registry may have given the time of the check.
    func remember(
        _ request: HTTP2Request, environment: APNsEnvironment, defaultTopic: String?, registryGeneration: UInt64,
        verdict: ValidationResult
    ) {
        variant = nil
        let until = pendingVerdictUntil
        pendingVerdictUntil = .max
        guard verdict.timestamp == nil else {
            hasLast = false
            template = nil
            modelIsLast = false
            return
        }
        if template != nil, modelIsLast, hasLast {
            variant = Variant(
                of: request, verdict: verdict, environment: environment, defaultTopic: defaultTopic, memo: self)
        }
        modelIsLast = false
        if variant == nil { template = nil }
        hasLast = true
        // `last` becomes `request` when the push is done (`keep(_:)` or `keep(taking:)`, which
        // `Gateway.handle` always calls): until then it is still the previous push, which the
        // rest of this push does not read (its record is written from `request` itself).
        lastPending = true
        lastDefaultTopic = defaultTopic
        lastEnvironment = environment
        lastRegistryGeneration = registryGeneration
        lastVerdictUntil = until
        // The verdict replaced is kept, not freed: the next validation reuses its box.
        spareVerdict = lastVerdict
        lastVerdict = verdict
    }

    /// How a push (`last`, just validated) differs from the template's model, when its record can
    /// be written from the model's (`CompactRecordTemplate.writeVariant`): the same method,
    /// authority, default topic, header names and verdict but for the device token, and the same
    /// header values but for those no other field points back at (every header but `apns-topic`,
    /// `apns-push-type`, `apns-collapse-id`, `apns-id` and `authorization`, which is redacted).
    /// The path's token and the payload may differ too. A sender notifying many devices sends such
    /// pushes one after another: the device token changes each time, often the payload.
    struct Variant {
        /// The path differs (its token; the verdict's device token is that token).
        var path: Bool
        /// Bit `i`: the value of header `i` differs.
        var headers: UInt64

        /// How `request` with `verdict` differs from the memo's `last` and `lastVerdict` (the
        /// model's); nil when it is no variant of them.
        /// The request and verdict are borrowed: an initializer's arguments are otherwise its own,
        /// and the caller copied both (a retain and a release of every field per push).
        init?(
            of request: borrowing HTTP2Request, verdict: borrowing ValidationResult, environment: APNsEnvironment,
            defaultTopic: String?, memo: PreviousRequest
        ) {
            // `memo.last` and `memo.lastVerdict` are read in place: a copy retains each of their fields.
            guard memo.lastEnvironment == environment, UTF8Bytes.equal(defaultTopic, memo.lastDefaultTopic),
                UTF8Bytes.equal(request.method, memo.last.method),
                UTF8Bytes.equal(request.authority, memo.last.authority),
                request.headers.count == memo.last.headers.count, request.headers.count <= 64,
                verdict.sameBytes(exceptDeviceToken: memo.lastVerdict)
            else { return nil }
            path = !UTF8Bytes.equal(request.path, memo.last.path)
            if path {
                guard let token = verdict.deviceToken,
                    UTF8Bytes.with(
                        request.path,
                        { path in
                            UTF8Bytes.with(memo.last.path) { $0.count == path.count }
                                && Variant.isDevicePath(path, token: token)
                        })
                else { return nil }
            } else if !UTF8Bytes.equal(verdict.deviceToken, memo.lastVerdict.deviceToken) {
                return nil
            }
            var changed: UInt64 = 0
            let ok = request.headers.withUnsafeBufferPointer { new in
                memo.last.headers.withUnsafeBufferPointer { old -> Bool in
                    // One list twice: the transport hands a repeated header block's list on as is.
                    if new.baseAddress == old.baseAddress { return true }
                    for index in 0..<new.count {
                        guard UTF8Bytes.equal(new[index].name, old[index].name) else { return false }
                        if UTF8Bytes.equal(new[index].value, old[index].value) { continue }
                        guard !Variant.isReferenced(new[index].name) else { return false }
                        changed |= 1 << UInt64(index)
                    }
                    return true
                }
            }
            guard ok else { return nil }
            headers = changed
        }

        /// Whether `path` is `/3/device/` then exactly the bytes of `token`.
        private static func isDevicePath(_ path: UnsafeBufferPointer<UInt8>, token: String) -> Bool {
            UTF8Bytes.with(token) { token in
                let prefix = 10  // "/3/device/"
                guard path.count == prefix + token.count else { return false }
                return memcmp(path.baseAddress!, "/3/device/", prefix) == 0
                    && (token.count == 0 || memcmp(path.baseAddress! + prefix, token.baseAddress!, token.count) == 0)
            }
        }

        /// Header names whose values another field of the record points back at, or that are
        /// redacted: `apns-topic`, `apns-push-type`, `apns-collapse-id`, `apns-id`, `authorization`.
        private static func isReferenced(_ name: String) -> Bool {
            UTF8Bytes.with(name) { name in
                func matches(_ literal: StaticString) -> Bool {
                    name.count == literal.utf8CodeUnitCount
                        && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
                }
                guard name.count > 0 else { return false }
                return matches("apns-topic") || matches("apns-push-type") || matches("apns-collapse-id")
                    || matches("apns-id") || matches("authorization")
            }
        }
    }

    /// What a push's record depends on beyond its request and verdict (the listener and
    /// environment come with the connection).
    struct RecordKey {
        var connectionID: UInt64
        var environment: APNsEnvironment
        /// The status and reason the record says were answered.
        var status: Int
        var reason: Reason?
        var identity: CredentialIdentity?
        /// The answered `apns-id` was generated, not echoed.
        var apnsIDGenerated: Bool

        /// Whether a push with these values has this key.
        func matches(
            connectionID: UInt64, environment: APNsEnvironment, status: Int, reason: Reason?,
            identity: CredentialIdentity?, apnsIDGenerated: Bool
        ) -> Bool {
            self.connectionID == connectionID && self.environment == environment && self.status == status
                && self.reason == reason && self.apnsIDGenerated == apnsIDGenerated
                && RecordKey.same(self.identity, identity)
        }

        /// Byte equality: identities whose text is only canonically equivalent are different records.
        static func same(_ a: CredentialIdentity?, _ b: CredentialIdentity?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case let (a?, b?):
                if a.isSameInstance(as: b) { return true }
                guard UTF8Bytes.equal(a.kind, b.kind), UTF8Bytes.equal(a.keyID, b.keyID),
                    UTF8Bytes.equal(a.teamID, b.teamID),
                    a.issuedAt?.bitPattern == b.issuedAt?.bitPattern, UTF8Bytes.equal(a.subject, b.subject),
                    UTF8Bytes.equal(a.verdict, b.verdict), (a.topics == nil) == (b.topics == nil)
                else { return false }
                guard let x = a.topics, let y = b.topics else { return true }
                return x.count == y.count && zip(x, y).allSatisfy { UTF8Bytes.equal($0, $1) }
            default: return false
            }
        }
    }

    /// Ends the push `request` (the one `remember(_:...)` was last told of): it becomes the
    /// previous push, copied.
    func keep(_ request: HTTP2Request) {
        guard lastPending else { return }
        lastPending = false
        last = request
    }

    /// `keep(_:)` without a copy: `request` and the memo's previous push trade places, so the
    /// caller is left with the push before it (to destroy, or to reuse its body's storage).
    /// Nothing changes when the push was not remembered (a repeat: `last` has its bytes already).
    func keep(taking request: inout HTTP2Request) {
        guard lastPending else { return }
        lastPending = false
        swap(&last, &request)
    }

    /// Stores in `store` the record of a push whose verdict was the previous push's
    /// (`repeatedVerdict` answered) and whose record key (see `RecordKey`) is the same as that
    /// push's: the remembered record with the per-push fields rewritten, stored as a delta of
    /// it (`DeliveryStore.append(repeating:template:_:status:reason:)`). Returns its sequence
    /// number; nil, storing nothing, when there is no such record to start from (none kept, the
    /// key differs, an ID of another form, or the store no longer holds it): encode in full, then
    /// `remember(record:landmarks:key:seq:)`. `labels` are the push's, for the store's series
    /// counts (`DeliveryStore.pushSeries()`).
    func appendRepeatedRecord(
        to store: DeliveryStore, connectionID: UInt64, environment: APNsEnvironment, status: Int,
        reason: Reason?, labels: PushLabels, identity: CredentialIdentity?, apnsIDGenerated: Bool,
        receivedAt: Double, streamID: Int32, apnsID: ResponseID, uniqueID: ResponseID?, request: borrowing HTTP2Request
    ) -> UInt64? {
        guard let template,
            templateKey.matches(
                connectionID: connectionID, environment: environment, status: status,
                reason: reason, identity: identity, apnsIDGenerated: apnsIDGenerated),
            let rewrite = template.rewrite(
                receivedAt: receivedAt, streamID: streamID, apnsID: apnsID, uniqueID: uniqueID)
        else {
            return nil
        }
        if !modelIsLast {
            guard let variant else { return nil }
            return appendVariant(
                variant, of: request, to: store, template: template, rewrite, status: status, reason: reason,
                labels: labels)
        }
        guard
            let seq = store.append(
                repeating: templateSeq, template: template, rewrite, status: status, reason: reason, labels: labels)
        else {
            return nil
        }
        // The model stays: repeats are stored as deltas of a full record. Once the ring has
        // evicted it, the next push is encoded in full and becomes the model.
        recordHits += 1
        return seq
    }

    /// Keeps where the fields lie in the record just stored as `seq` (encoded as `record`, with
    /// `landmarks`) of the push whose verdict was just remembered or repeated, for the next push
    /// that repeats it.
    func remember(record: UnsafeBufferPointer<UInt8>, landmarks: CompactRecord.Landmarks, key: RecordKey, seq: UInt64) {
        guard hasLast else { return }
        template = CompactRecordTemplate(record, landmarks: landmarks, apnsIDGenerated: key.apnsIDGenerated)
        templateSeq = seq
        templateKey = key
        modelBytes.removeAll(keepingCapacity: true)
        modelBytes.append(contentsOf: record)
        variantLayout = template == nil ? nil : CompactRecordTemplate.VariantLayout(record, landmarks: landmarks)
        modelIsLast = true
        variant = nil
    }

    /// Whether `name` is `authorization`.
    @inline(__always)
    private static func isAuthorization(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let literal: StaticString = "authorization"
        return name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
    }

    /// Stores the record of `request` (the push just remembered, about to become `last`), a
    /// `variant` of the model, written from the model's bytes
    /// (`CompactRecordTemplate.writeVariant`) in full; it becomes the model. Returns its sequence
    /// number; nil, storing nothing, when it cannot be written so (encode in full).
    private func appendVariant(
        _ variant: Variant, of request: borrowing HTTP2Request, to store: DeliveryStore,
        template: CompactRecordTemplate,
        _ rewrite: CompactRecordTemplate.Rewrite, status: Int, reason: Reason?, labels: PushLabels
    ) -> UInt64? {
        self.variant = nil
        guard variantLayout != nil else { return nil }
        let successor = modelBytes.withUnsafeBufferPointer { model in
            template.writeVariant(
                rewrite, layout: &variantLayout!, from: model, path: variant.path ? request.path : nil,
                headers: request.headers,
                changedHeaders: variant.headers, payloadBytes: request.bodyLength, payload: request.body,
                into: &spareBytes)
        }
        guard let successor else { return nil }
        let seq = spareBytes.withUnsafeBufferPointer {
            store.append($0, status: status, reason: reason, labels: labels)
        }
        swap(&modelBytes, &spareBytes)
        self.template = successor
        templateSeq = seq
        modelIsLast = true
        variantHits += 1
        // A variant's `authorization` is the model's, redacted as it was: a reused redaction.
        // Names read in place (a closure over the fields retained and released each name).
        let hasAuthorization = request.headers.withUnsafeBufferPointer { fields in
            fields.contains { UTF8Bytes.with($0.name) { PreviousRequest.isAuthorization($0) } }
        }
        if hasAuthorization { redactionHits += 1 }
        return seq
    }
}
