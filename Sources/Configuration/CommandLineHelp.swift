/// The text `mock-apns --help` prints. Defaults shown here must match `Configuration()`;
/// a test checks that every option the parser knows is listed.
enum CommandLineHelp {
    static let text = """
        mock-apns \(MockAPNsVersion.string): a mock Apple Push Notification service gateway for tests.

        USAGE
          mock-apns [serve] [OPTIONS]
          mock-apns send [SEND OPTIONS] PAYLOAD   (a client; mock-apns send --help)
          mock-apns jwt [JWT OPTIONS]             (prints a JWT; mock-apns jwt --help)
          mock-apns --help | --version

        Serves the APNs provider API (HTTP/2, TLS by default) on one or more listeners,
        records every request, and offers an HTTP/1.1 control API to read the records.
        Options override the values of the configuration file given with --config;
        anything neither sets keeps the default shown.

        OPTIONS
          --config FILE                JSON configuration file (see CONFIGURATION FILE).
          --listen HOST:PORT           Address of the first listener; port 0 picks a
                                       free port; IPv6 as [::1]:2197.
                                       Default: 127.0.0.1:2197.
          --environment ENV            Environment of the first listener: sandbox or
                                       production. Default: sandbox.
          --plaintext                  Serve the first listener in cleartext HTTP/2
                                       (prior knowledge, no TLS). Default: TLS.
          --tls-cert FILE              PEM certificate of the first listener; give with
                                       --tls-key. Default: an ephemeral self-signed
                                       certificate made at start.
          --tls-key FILE               PEM private key for --tls-cert.
          --auth MODE                  Provider authentication on the first listener.
                                       none: no credential checks. permissive: a
                                       provider token, when present, must be
                                       well-formed, unexpired and not from the
                                       future; its signature is checked when its key
                                       is configured (--keys); unknown keys are
                                       accepted and flagged in the record. strict:
                                       every push needs a valid token from a
                                       configured key, or a trusted client
                                       certificate. Default: permissive.
          --client-ca FILE             PEM CA whose client certificates the first
                                       listener trusts; turns on mutual TLS (the
                                       listener asks for a client certificate). Not
                                       with --plaintext. Default: none.
          --keys FILE                  JSON manifest of the provider-token keys (key
                                       ID, team ID, key file, scope, environments),
                                       like fixtures/auth/keys.json. Default: none.
          --clock-offset SECONDS       Added to the clock for provider-token time
                                       checks, so a token expires without waiting
                                       (4000 makes a fresh token expired); may be
                                       negative. Default: 0.
          --control HOST:PORT|off      Address of the HTTP/1.1 control API, or off for
                                       none. Default: 127.0.0.1:8197.
          --max-records N              Delivery records kept before the oldest are
                                       dropped, at least 1. A record takes about
                                       210 bytes plus its body; a push repeating
                                       its connection's previous one, about 100.
                                       Default: 100000.
          --max-events N               Connection events (GOAWAY, resets, SETTINGS,
                                       stalls, listener conditions, opened, closed)
                                       kept before the oldest are dropped, at least
                                       1. Default: 10000.
          --registry open|closed       open accepts any well-formed device token; closed
                                       accepts only registered devices. Default: open.
          --token-length N             Require device tokens of exactly N hex characters
                                       (even, e.g. 64). Default: any even length, at
                                       most 200.
          --max-concurrent-streams N   HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS, 1 to
                                       2147483647. Default: 1000.
          --stream-profile PROFILE     fixed keeps the stream limit; apple-observed
                                       drops it to 1 after a rejected push and
                                       restores it after the next accepted one, as
                                       APNs does. Default: fixed.
          --workers N                  Event-loop threads, 0 to 1024; 0 means one per
                                       usable CPU core (online, and allowed by
                                       taskset or a cpuset) but one, at least one,
                                       leaving a core for the sender under test.
                                       Default: 0.
          --drain-timeout SECONDS      On stop, the longest wait for in-flight streams.
                                       Default: 5.
          --idle-timeout SECONDS       End connections idle this long (no request).
                                       Default: none (kept open).
          --idle-action reset|goaway   How idle connections end: reset (TCP RST, as
                                       observed) or goaway (GOAWAY IdleTimeout).
                                       Default: reset.
          --fault-scenario NAME        Inject a fault scenario from the start, with
                                       default parameters: apns-outage (503 to every
                                       push), flaky (500 to 10%), token-expiry (403
                                       ExpiredProviderToken) or graceful-restart
                                       (GOAWAY once per connection); throttled needs
                                       parameters, so give it in the file's
                                       scenarios. Tried after the file's faults;
                                       manage faults at run time at /v1/faults.
                                       Default: none.
          --log-level LEVEL            error, warning, info or debug. Default: info.
          -h, --help                   Print this help and exit.
          --version                    Print the version and exit.

          A value follows its option after a space or an equals sign (--workers 2 or
          --workers=2). Give each option at most once.
          --listen, --environment, --plaintext, --tls-cert, --tls-key, --auth and
          --client-ca shape the first listener; define further listeners in the
          configuration file.

        CONFIGURATION FILE
          One JSON object; // and /* */ comments and trailing commas are allowed,
          unknown keys are errors. Keys: listeners (name, host, port, listen,
          environment, plaintext, tls, alpn, auth, clientCAs, conditions:
          handshakeDelayMs, silent, refuseMs), control, maxRecords, maxEvents,
          registry, tokenLength, maxTokenLength, lintsAsErrors,
          invalidPayloadReason, devices, http2 (maxConcurrentStreams,
          streamProfile), workers, logLevel, drainTimeoutSeconds, keys (the key
          manifest), clockOffsetSeconds, faults (fault rules, as POST /v1/faults
          takes them), scenarios (name, parameters; their rules follow the
          faults), idleTimeoutSeconds, idleAction.
          Relative paths (tls, clientCAs, keys) are resolved against the file's
          directory. An annotated example using every key:
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
