import JSONInput
import JSONSupport

extension Configuration {
    /// Checks the values and how they fit together: ranges, unique listener names, addresses
    /// that can all be bound at once, TLS and client-CA settings, token rules, devices, the
    /// provider-authentication settings and the fault rules (values, unique ids). Throws the first
    /// problem, naming the field by its config-file path (e.g. `listeners[1].port`).
    ///
    /// `ConfigurationFile` and `CommandLineParser` call this; embedders who build a
    /// configuration by hand should too. It does not touch the file system: whether the TLS
    /// files, client CAs and key manifest exist is checked when the server starts.
    public func validate() throws(ConfigurationError) {
        try validateListeners()
        try validateControl()
        try validateBinaryListeners()
        try Self.check(maxRecords, in: ConfigurationSetting.file("maxRecords").range, field: "maxRecords")
        try Self.check(maxEvents, in: ConfigurationSetting.file("maxEvents").range, field: "maxEvents")
        try Self.check(maxFaultRules, in: ConfigurationSetting.file("maxFaultRules").range, field: "maxFaultRules")
        try Self.check(maxGateways, in: ConfigurationSetting.file("maxGateways").range, field: "maxGateways")
        try Self.check(
            gatewayMaxRecords, in: ConfigurationSetting.file("gatewayMaxRecords").range, field: "gatewayMaxRecords")
        try Self.check(
            controlIdleTimeoutSeconds, in: ConfigurationSetting.file("controlIdleTimeoutSeconds").range,
            field: "controlIdleTimeoutSeconds")
        try Self.check(
            controlMaxStreams, in: ConfigurationSetting.file("controlMaxStreams").range, field: "controlMaxStreams")
        try Self.check(
            controlStreamBufferBytes, in: ConfigurationSetting.file("controlStreamBufferBytes").range,
            field: "controlStreamBufferBytes")
        try Self.check(
            maxConcurrentStreams, in: ConfigurationSetting.file("http2.maxConcurrentStreams").range,
            field: "http2.maxConcurrentStreams")
        try Self.check(workers, in: ConfigurationSetting.file("workers").range, field: "workers")
        guard drainTimeoutSeconds.isFinite, drainTimeoutSeconds >= 0,
            drainTimeoutSeconds <= ConfigurationLimits.maxDrainTimeout
        else {
            throw ConfigurationError(
                field: "drainTimeoutSeconds",
                message: "expected \(ConfigurationLimits.drainTimeoutExpectation), got \(drainTimeoutSeconds)")
        }
        try validateValidationOptions()
        try validateDevices()
        if keysManifestPath == "" {
            throw ConfigurationError(field: "keys", message: "expected a file path or null, got \"\"")
        }
        if journalPath == "" {
            throw ConfigurationError(field: "journal", message: "expected a file path or null, got \"\"")
        }
        guard clockOffsetSeconds.isFinite, abs(clockOffsetSeconds) <= ConfigurationLimits.maxClockOffset else {
            throw ConfigurationError(
                field: "clockOffsetSeconds",
                message: "expected \(ConfigurationLimits.clockOffsetExpectation), got \(clockOffsetSeconds)")
        }
        if let idle = idleTimeoutSeconds, !(idle.isFinite && idle > 0 && idle <= ConfigurationLimits.maxIdleTimeout) {
            throw ConfigurationError(
                field: "idleTimeoutSeconds",
                message: "expected \(ConfigurationLimits.idleTimeoutExpectation), got \(idle)")
        }
        try validateFaults()
    }

    /// Each rule as the fault engine checks it when the server adds them, so a mistake is
    /// reported with its configuration path before anything starts.
    private func validateFaults() throws(ConfigurationError) {
        var firstIndexByID: [String: Int] = [:]
        for (index, rule) in faults.enumerated() {
            let path = "faults[\(index)]"
            do {
                try rule.validate(at: path)
            } catch {
                throw ConfigurationError(field: error.field, message: error.message)
            }
            guard let id = rule.id else { continue }
            if let first = firstIndexByID[id] {
                throw ConfigurationError(
                    field: "\(path).id",
                    message: "duplicate fault rule id \(InputError.quoted(id)) (also faults[\(first)])")
            }
            firstIndexByID[id] = index
        }
    }

    private func validateListeners() throws(ConfigurationError) {
        guard !listeners.isEmpty else {
            throw ConfigurationError(field: "listeners", message: "expected at least one listener")
        }
        var firstIndexByName: [String: Int] = [:]
        for (index, listener) in listeners.enumerated() {
            let path = "listeners[\(index)]"
            guard !listener.name.isEmpty else {
                throw ConfigurationError(field: "\(path).name", message: "expected a non-empty name")
            }
            if let first = firstIndexByName[listener.name] {
                throw ConfigurationError(
                    field: "\(path).name",
                    message:
                        "duplicate listener name \(InputError.quoted(listener.name)) (also listeners[\(first)]); names must be unique"
                )
            }
            firstIndexByName[listener.name] = index
            try Self.checkHost(listener.host, field: "\(path).host")
            try Self.check(listener.port, in: ConfigurationLimits.port, field: "\(path).port")
            switch (listener.tlsCertificatePath, listener.tlsKeyPath) {
            case (nil, nil):
                break
            case (let certificate?, let key?):
                if listener.plaintext {
                    throw ConfigurationError(
                        field: "\(path).tls",
                        message:
                            "a plaintext listener takes no TLS certificate; remove the certificate and key or turn plaintext off"
                    )
                }
                if certificate.isEmpty {
                    throw ConfigurationError(
                        field: "\(path).tls.certificate", message: "expected a file path, got \"\"")
                }
                if key.isEmpty {
                    throw ConfigurationError(field: "\(path).tls.key", message: "expected a file path, got \"\"")
                }
            case (nil, _?):
                throw ConfigurationError(
                    field: "\(path).tls", message: "a TLS key needs its certificate; the certificate is missing")
            case (_?, nil):
                throw ConfigurationError(
                    field: "\(path).tls", message: "a TLS certificate needs its key; the key is missing")
            }
            if !listener.clientCAPaths.isEmpty && listener.plaintext {
                throw ConfigurationError(
                    field: "\(path).clientCAs",
                    message:
                        "a plaintext listener cannot ask for client certificates; remove the client CAs or turn plaintext off"
                )
            }
            if let empty = listener.clientCAPaths.firstIndex(of: "") {
                throw ConfigurationError(
                    field: "\(path).clientCAs[\(empty)]", message: "expected a file path, got \"\"")
            }
            let address = HostPort(host: listener.host, port: listener.port)
            if let other = listeners[..<index].firstIndex(where: {
                HostPort(host: $0.host, port: $0.port).conflicts(with: address)
            }) {
                throw ConfigurationError(
                    field: path,
                    message: "address \(address) conflicts with listeners[\(other)] (\(listeners[other].address))")
            }
        }
    }

    private func validateControl() throws(ConfigurationError) {
        guard let control else { return }
        try Self.checkHost(control.host, field: "control.host")
        try Self.check(control.port, in: ConfigurationLimits.port, field: "control.port")
        let address = HostPort(host: control.host, port: control.port)
        if let other = listeners.firstIndex(where: { HostPort(host: $0.host, port: $0.port).conflicts(with: address) })
        {
            throw ConfigurationError(
                field: "control",
                message: "address \(address) conflicts with listeners[\(other)] (\(listeners[other].address))")
        }
    }

    /// The binary and feedback listeners: one of each kind at most, a port each that no HTTP/2
    /// listener, the control API or the other kind holds (Apple's 2195 and 2196 on separate
    /// loopback addresses share no port; docs/legacy-binary.md §5), usable limits.
    private func validateBinaryListeners() throws(ConfigurationError) {
        var taken: [(HostPort, String)] = listeners.enumerated().map {
            (HostPort(host: $0.element.host, port: $0.element.port), "listeners[\($0.offset)]")
        }
        if let control { taken.append((HostPort(host: control.host, port: control.port), "control")) }
        for listener in binaryListeners {
            let field = listener.kind.rawValue
            if binaryListeners.filter({ $0.kind == listener.kind }).count > 1 {
                throw ConfigurationError(field: field, message: "give one \(field) listener")
            }
            try Self.checkHost(listener.host, field: field + ".listen")
            try Self.check(listener.port, in: ConfigurationLimits.port, field: field + ".listen")
            let address = HostPort(host: listener.host, port: listener.port)
            if let other = taken.first(where: { $0.0.conflicts(with: address) }) {
                throw ConfigurationError(
                    field: field + ".listen",
                    message: "address \(address) conflicts with \(other.1) (\(other.0)); give each listener its own "
                        + "port or host (e.g. 127.0.0.2 for gateway.sandbox.push.apple.com)")
            }
            taken.append((address, field))
            // The binary protocol carries no provider token: under strict authentication only a
            // verified client certificate authenticates a connection, as on Apple's gateway.
            if listener.kind == .binary, let first = listeners.first, first.auth == .strict,
                first.clientCAPaths.isEmpty || !listener.certificateRequired
            {
                throw ConfigurationError(
                    field: field,
                    message: "with auth strict, binary connections need a verified client certificate (the binary "
                        + "protocol has no provider token): give --client-ca (client CAs on the first listener) "
                        + "and not --binary-without-certificate")
            }
            if let problem = listener.limits.problem {
                throw ConfigurationError(field: field, message: problem)
            }
        }
    }

    private func validateValidationOptions() throws(ConfigurationError) {
        let maxTokenLength = validation.maxTokenLength
        try Self.check(maxTokenLength, in: ConfigurationSetting.file("maxTokenLength").range, field: "maxTokenLength")
        if let tokenLength = validation.tokenLength,
            tokenLength < 2 || tokenLength > maxTokenLength || tokenLength % 2 != 0
        {
            throw ConfigurationError(
                field: "tokenLength",
                message:
                    "expected \(ConfigurationLimits.tokenLengthExpectation(maxTokenLength: maxTokenLength)), got \(tokenLength)"
            )
        }
        let reason = validation.invalidPayloadReason
        guard reason.status == 400 else {
            throw ConfigurationError(
                field: "invalidPayloadReason",
                message:
                    "expected a reason with status 400, got \(InputError.quoted(reason.rawValue)) (status \(reason.status))"
            )
        }
    }

    private func validateDevices() throws(ConfigurationError) {
        var firstIndexByToken: [String: Int] = [:]
        for (index, device) in devices.enumerated() {
            let path = "devices[\(index)]"
            let token = device.token
            let isLowercaseHex = token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            guard !token.isEmpty, token.utf8.count % 2 == 0, isLowercaseHex else {
                throw ConfigurationError(
                    field: "\(path).token",
                    message:
                        "expected a non-empty, even-length, lowercase hexadecimal string, got \(InputError.quoted(token))"
                )
            }
            if let required = validation.tokenLength, token.count != required {
                throw ConfigurationError(
                    field: "\(path).token",
                    message: "the token has \(token.count) hex characters but tokenLength requires \(required)")
            }
            if token.count > validation.maxTokenLength {
                throw ConfigurationError(
                    field: "\(path).token",
                    message:
                        "the token has \(token.count) hex characters, more than maxTokenLength (\(validation.maxTokenLength))"
                )
            }
            if let first = firstIndexByToken[token] {
                throw ConfigurationError(
                    field: "\(path).token", message: "duplicate device token (also devices[\(first)])")
            }
            firstIndexByToken[token] = index
            if device.topic == "" {
                throw ConfigurationError(field: "\(path).topic", message: "expected a bundle ID or null, got \"\"")
            }
            if let unregisteredAt = device.unregisteredAt, unregisteredAt < 0 {
                throw ConfigurationError(
                    field: "\(path).unregisteredAt",
                    message: "expected \(ConfigurationLimits.timestampExpectation), got \(unregisteredAt)")
            }
        }
    }

    private static func check(_ value: Int, in range: ClosedRange<Int>, field: String) throws(ConfigurationError) {
        guard range.contains(value) else {
            throw ConfigurationError(
                field: field, message: "expected \(ConfigurationLimits.expectation(range)), got \(value)")
        }
    }

    private static func checkHost(_ host: String, field: String) throws(ConfigurationError) {
        if let problem = HostPort.hostProblem(host) {
            throw ConfigurationError(
                field: field,
                message: "expected a host name or IP address, got \(InputError.quoted(host)) (\(problem))")
        }
    }
}
