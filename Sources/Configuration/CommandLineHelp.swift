/// The text `mock-apns --help` prints. Its OPTIONS come from the settings table
/// (`ConfigurationSetting.all`: flag, placeholder, help and the default of `Configuration()`),
/// wrapped to 80 columns; a test checks that every option the parser knows is listed.
enum CommandLineHelp {
    /// The column where an option's description starts.
    static let descriptionColumn = 31
    /// The widest line.
    static let width = 80

    /// The OPTIONS entries of the table's flags, each `  --flag VALUE` then its help and
    /// `Default: ...`, wrapped; the lines after the first are indented to `descriptionColumn`.
    static var options: String {
        ConfigurationSetting.all.compactMap { setting -> String? in
            guard let flag = setting.flag else { return nil }
            let head = "  " + ([flag] + (setting.placeholder.map { [$0] } ?? [])).joined(separator: " ")
            var text = setting.help
            // "Default:" never ends a line: a no-break space ties it to the value's first word.
            if let defaultText = setting.defaultText { text += " Default:\u{A0}\(defaultText)." }
            let lines = wrap(text, width: width - descriptionColumn).map {
                $0.replacingOccurrences(of: "\u{A0}", with: " ")
            }
            let indent = String(repeating: " ", count: descriptionColumn)
            let first =
                head.count < descriptionColumn - 1
                ? head + String(repeating: " ", count: descriptionColumn - head.count) + (lines.first ?? "")
                : head + "\n" + indent + (lines.first ?? "")
            return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    static let text = """
        mock-apns \(MockAPNsVersion.string): a mock Apple Push Notification service gateway for tests.

        USAGE
          mock-apns [serve] [OPTIONS]
          mock-apns send [SEND OPTIONS] PAYLOAD   (a client; mock-apns send --help)
          mock-apns jwt [JWT OPTIONS]             (prints a JWT; mock-apns jwt --help)
          mock-apns export-apns SEQ [OPTIONS]     (a record as a Simulator .apns file)
          mock-apns health [--control URL]        (exit 0 if the server is healthy)
          mock-apns --help | --version

        Serves the APNs provider API (HTTP/2, TLS by default) on one or more listeners,
        records every request, and offers an HTTP/1.1 control API to read the records.
        Options override the values of the configuration file given with --config;
        anything neither sets keeps the default shown.

        OPTIONS
        \(options)
          -h, --help                   Print this help and exit.
          --version                    Print the version and exit.

          A value follows its option after a space or an equals sign (--workers 2 or
          --workers=2). Give each option at most once, but --control-allow-host and
          --control-allow-origin, which repeat.
          --listen, --environment, --plaintext, --tls-cert, --tls-key, --auth and
          --client-ca shape the first listener; define further listeners in the
          configuration file.

        CONFIGURATION FILE
          One JSON object; // and /* */ comments and trailing commas are allowed,
          unknown keys are errors. Keys: listeners (name, host, port, listen,
          environment, plaintext, tls, alpn, auth, clientCAs, conditions:
          handshakeDelayMs, silent, refuseMs), control (host, port, allowHosts,
          allowOrigins, token, insecureNoToken), maxRecords, maxEvents,
          maxFaultRules, maxGateways, gatewayMaxRecords,
          controlIdleTimeoutSeconds, controlMaxStreams,
          controlStreamBufferBytes, registry, tokenLength,
          maxTokenLength, lintsAsErrors,
          invalidPayloadReason, devices (with device-model fields: virtual
          devices), deviceModel (their settings), broadcast (channels and
          broadcast sends), http2 (maxConcurrentStreams, streamProfile),
          workers, logLevel, drainTimeoutSeconds, keys (the key
          manifest), clockOffsetSeconds, faults (fault rules, as POST /v1/faults
          takes them), scenarios (name, parameters; their rules follow the
          faults), idleTimeoutSeconds, idleAction, readyFile, journal,
          journalSync.
          Relative paths (tls, clientCAs, keys, readyFile, journal) are resolved against
          the file's directory. An annotated example using every key:
          fixtures/mock-apns.example.json in the repository.

        EXAMPLES
          mock-apns
              Sandbox gateway on 127.0.0.1:2197 (self-signed TLS), control on 8197.
          mock-apns --listen 0.0.0.0:2197 --plaintext --control off
              Cleartext HTTP/2 on every interface, no control API.
          mock-apns --listen 127.0.0.1:0 --tls-cert server.pem --tls-key server-key.pem
              Your own certificate on a free port.
          mock-apns --config mock-apns.json --log-level debug
              A configuration file, with more logging.

        Exits with status 2 on a usage or configuration error.
        """
}
