import HTTPFields

/// Validates one APNs push request: a pure function from the request to a `ValidationResult`.
///
/// The verdict holds every field that could be parsed, even when the request is refused, and one
/// reason: the first failing check in APNs's order (docs/apns-behaviour.md §9 "Order of checks";
/// authentication is the caller's job, between the path and the headers):
///
/// 1. `:method` not POST → 405 `MethodNotAllowed`; `:path` not `/3/device/<token>` → 404 `BadPath`,
///    or 400 `MissingDeviceToken` for `/3/device/` and `/3/device`.
/// 2. A header name repeated → `DuplicateHeaders`.
/// 3. Headers: `apns-id` (`BadMessageId`), `apns-expiration` (`BadExpirationDate`), `apns-priority`
///    (`BadPriority`), `apns-push-type` (`InvalidPushType`), `apns-collapse-id` (`BadCollapseId`).
/// 4. Device token format → `BadDeviceToken` (`DeviceTokenRule`).
/// 5. Topic: absent with no default → `MissingTopic`; implausible → `BadTopic` (`TopicRule`).
/// 6. Sent push type versus topic suffix → `InvalidPushType` / `DeviceTokenNotForTopic`.
/// 7. Registry → `BadDeviceToken`, `DeviceTokenNotForTopic`, 410 `ExpiredToken` / `Unregistered`.
/// 8. Payload: empty → `PayloadEmpty`; over `PushType.maxPayloadBytes` bytes → 413
///    `PayloadTooLarge` (size before parsing, so large garbage gets 413); not a JSON object →
///    `invalidPayloadReason` with `payloadError`.
/// 9. With `lintsAsErrors`, the first lint → its `PayloadLint.rejectionReason`.
public enum RequestValidator {
    /// Validates `request` for a listener of `environment`.
    ///
    /// - Parameters:
    ///   - request: the assembled request; header names lowercase, in arrival order.
    ///   - environment: the listener's environment, compared with the registered device's.
    ///   - options: the docs/apns-behaviour.md §9 knobs (token length, registry mode, lints as errors,
    ///     reason for invalid JSON).
    ///   - nowMilliseconds: current time, ms since the Unix epoch; the 410 `timestamp` of an
    ///     expired device that has no `unregisteredAt`.
    ///   - defaultTopic: the topic used when `apns-topic` is absent (a single-topic client
    ///     certificate's bundle ID, Apple *Communicating with APNs*); `nil` otherwise.
    ///   - memo: the connection's previous request; a body or device token with the same bytes
    ///     as its own is not checked again (`nil`: check everything).
    ///   - lookup: the device registry, called with the lowercase token, only for requests that
    ///     passed every check before it.
    /// - Returns: the verdict; `reason == nil` means 200.
    package static func validate(
        _ request: HTTP2Request, environment: APNsEnvironment, options: ValidationOptions,
        nowMilliseconds: Int64, defaultTopic: String? = nil, memo: (any ValidationMemo)?,
        lookup: (String) -> DeviceRegistration?
    ) -> ValidationResult {
        // The verdict's fields, gathered here and put together once at the end: its text
        // fields share a box, and each write through it is a uniqueness and an exclusivity check.
        var deviceToken: String?, apnsID: String?, pushTypeSent: String?
        var expiration: Int64?, priority: Int?, timestamp: Int64?
        var payloadError: String?, lintMessages: [String] = []
        // The first failure wins; later steps still run to fill the verdict's fields.
        var reason: Reason?

        // 1. Method and path.
        if !RequestPathRule.isAllowedMethod(request.method) { reason = .methodNotAllowed }
        var validToken: String?
        var tokenIsBad = false
        switch RequestPathRule.parse(request.path) {
        case .badPath:
            if reason == nil { reason = .badPath }
        case .missingToken:
            if reason == nil { reason = .missingDeviceToken }
        case .token(let text):
            if let token = memo.map({ $0.normalizedToken(text, options: options) })
                ?? DeviceTokenRule.normalized(text, options: options)
            {
                validToken = token
                deviceToken = token
            } else {
                tokenIsBad = true
                deviceToken = DeviceTokenRule.recordForm(text)
            }
        }

        // 2. Duplicate headers.
        let headers = RequestHeaders(request.headers)
        if headers.hasDuplicates && reason == nil { reason = .duplicateHeaders }

        // 3. Header values, in the order listed in Apple's header table.
        if let id = headers.apnsID {
            if HeaderRules.isCanonicalUUID(id) { apnsID = id } else if reason == nil { reason = .badMessageID }
        }
        if let text = headers.expiration {
            expiration = HeaderRules.expiration(text)
            if expiration == nil && reason == nil { reason = .badExpirationDate }
        }
        if let text = headers.priority {
            priority = HeaderRules.priority(text)
            if priority == nil && reason == nil { reason = .badPriority }
        } else {
            priority = 10
        }
        var sentType: PushType?
        if let text = headers.pushType {
            pushTypeSent = text
            sentType = HeaderRules.pushType(text)
            if sentType == nil && reason == nil { reason = .invalidPushType }
        }
        if let collapseID = headers.collapseID {
            if !HeaderRules.isValidCollapseID(collapseID) && reason == nil { reason = .badCollapseID }
        }

        // 4. Device token format.
        if tokenIsBad && reason == nil { reason = .badDeviceToken }

        // 5. Topic. A default topic comes from the certificate and is trusted as is.
        let topic = headers.topic ?? defaultTopic
        if let sent = headers.topic {
            if !TopicRule.isValid(sent) && reason == nil { reason = .badTopic }
        } else if topic == nil && reason == nil {
            reason = .missingTopic
        }

        // 6. Push type against the topic suffix: only for a push type that was sent.
        if reason == nil, let sentType, let topic, let mismatch = TopicRule.pushTypeMismatch(sentType, topic: topic) {
            reason = mismatch
        }

        // 7. Registry: consulted only for an otherwise acceptable request (it may take a lock).
        if reason == nil, let token = validToken, let topic,
            let refusal = RegistryRule.check(
                lookup(token), topic: topic, environment: environment,
                mode: options.registry, nowMilliseconds: nowMilliseconds)
        {
            reason = refusal.reason
            timestamp = refusal.timestamp
        }

        // 8. Payload. Without a sent push type the limit is 4096: inference yields only alert
        // or background.
        let body = request.body
        var facts: PayloadFacts?
        if request.bodyLength == 0 {
            if reason == nil { reason = .payloadEmpty }
        } else if request.bodyLength > (sentType ?? .alert).maxPayloadBytes {
            if reason == nil { reason = .payloadTooLarge }
        } else {
            let outcome =
                memo?.outcome(of: body, inspect: PayloadInspector.inspect(_:scratch:)) ?? PayloadInspector.inspect(body)
            switch outcome {
            case .object(let parsed):
                facts = parsed
            case .invalid(let message):
                payloadError = message
                if reason == nil { reason = options.invalidPayloadReason }
            }
        }
        let pushType = sentType ?? ((facts?.isContentAvailableOnly ?? false) ? .background : .alert)

        // 9. Lints, for any body that parsed as an object.
        if let facts {
            let lints = PayloadLints.lints(
                facts, pushType: pushType, pushTypeSent: headers.pushType != nil,
                priority: priority)
            if let first = lints.first {
                if options.lintsAsErrors && reason == nil {
                    reason = first.rejectionReason(invalidPayloadReason: options.invalidPayloadReason)
                }
                lintMessages = lints.map(\.message)
            }
        }

        return ValidationResult(
            reason: reason, timestamp: timestamp, deviceToken: deviceToken, topic: topic,
            pushTypeSent: pushTypeSent, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: headers.collapseID, apnsID: apnsID, lints: lintMessages, payloadError: payloadError)
    }

    /// Validates `request` for a listener of `environment`, checking everything (no memo of the
    /// connection's previous request); the parameters are those of the overload above.
    public static func validate(
        _ request: HTTP2Request, environment: APNsEnvironment, options: ValidationOptions,
        nowMilliseconds: Int64, defaultTopic: String? = nil,
        lookup: (String) -> DeviceRegistration?
    ) -> ValidationResult {
        validate(
            request, environment: environment, options: options, nowMilliseconds: nowMilliseconds,
            defaultTopic: defaultTopic, memo: nil, lookup: lookup)
    }
}
