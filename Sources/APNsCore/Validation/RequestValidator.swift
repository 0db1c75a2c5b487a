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
        var deviceToken: String?, timestamp: Int64?
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
        case .token:
            // The token's bytes are read in the path, in place (no Substring of it).
            let checked = RequestPathRule.withToken(of: request.path) { text -> (valid: String?, recorded: String) in
                let valid =
                    if let memo { memo.normalizedToken(text, options: options) } else {
                        DeviceTokenRule.normalized(utf8: text, options: options)
                    }
                return (valid, valid ?? DeviceTokenRule.recordForm(utf8: text))
            }
            if let token = checked.valid {
                validToken = token
            } else {
                tokenIsBad = true
            }
            deviceToken = checked.recorded
        }

        // 2, 3, 5 and 6: what the header fields decide (`HeaderChecks`), the memo's when they
        // repeat the previous push's.
        let checks =
            memo?.headerChecks(of: request.headers, defaultTopic: defaultTopic)
            ?? HeaderChecks(request.headers, defaultTopic: defaultTopic)
        if reason == nil { reason = checks.reasonBeforeToken }
        let apnsID = checks.apnsID, expiration = checks.expiration, priority = checks.priority
        let pushTypeSent = checks.pushTypeSent, sentType = checks.sentType, topic = checks.topic

        // 4. Device token format.
        if tokenIsBad && reason == nil { reason = .badDeviceToken }
        if reason == nil { reason = checks.reasonAfterToken }

        // 7. Registry: consulted only for an otherwise acceptable request (it may take a lock).
        if reason == nil, let token = validToken, let topic {
            let registration = lookup(token)
            if let refusal = RegistryRule.check(
                registration, topic: topic, environment: environment,
                mode: options.registry, nowMilliseconds: nowMilliseconds)
            {
                reason = refusal.reason
                timestamp = refusal.timestamp
            } else if let since = registration?.unregisteredAt, since > nowMilliseconds {
                memo?.verdictHolds(until: since)  // accepted until the unregistration comes
            }
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
            // Consumed: the facts are moved out of the outcome, not copied (bench/callgrind.sh).
            switch consume outcome {
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
                facts, pushType: pushType, pushTypeSent: pushTypeSent != nil,
                priority: priority)
            if let first = lints.first {
                if options.lintsAsErrors && reason == nil {
                    reason = first.rejectionReason(invalidPayloadReason: options.invalidPayloadReason)
                }
                lintMessages = lints.map(\.message)
            }
        }

        return ValidationResult(
            reusing: memo?.takeSpareVerdict(),
            reason: reason, timestamp: timestamp, deviceToken: deviceToken, topic: topic,
            pushTypeSent: pushTypeSent, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: checks.collapseID, apnsID: apnsID, lints: lintMessages, payloadError: payloadError)
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
