// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MockAPNs",
    products: [
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        // For Swift test suites: waitForDeliveries, verify, and a push client that trusts the
        // in-process server's certificate (README "Embedding in a Swift test suite").
        .library(name: "MockAPNsTesting", targets: ["MockAPNsTesting"]),
        .executable(name: "mock-apns", targets: ["mock-apns"]),
    ],
    targets: [
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // yajl, the event-driven JSON parser behind the push path's payload check (PayloadScanner).
        .systemLibrary(
            name: "CYAJL", pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]),
        .systemLibrary(
            name: "CLibevent", pkgConfig: "libevent_pthreads",
            providers: [.apt(["libevent-dev"])]),
        // OpenSSL's error queue as text and the monotonic clock: the C-library glue the transport,
        // the client and provider authentication share.
        .target(name: "SystemSupport", dependencies: ["COpenSSL"]),
        // `HeaderField` and `HTTP2Request`, shared by the transport and the APNs domain so that a
        // push crosses between them without conversion; `HTTP2ErrorCode`, shared by faults,
        // events and the client. No dependencies.
        .target(name: "HTTPFields"),
        // The one command-line option scanner (`--name VALUE`, `--name=VALUE`, flags): `serve`'s
        // options from the settings table, `send` and `jwt`. No dependencies.
        .target(name: "CommandLineOptions"),
        // Strict JSON input for configuration files and control-API bodies: Foundation parses,
        // this refuses unknown and duplicate keys and words errors with field paths and
        // line/column; the project's one JSON value type (`JSONNode`, read and written), one "did
        // you mean" (`ClosestMatch`) and one ISO 8601 parser/formatter (`ISO8601Timestamp`).
        // Foundation only.
        .target(name: "JSONInput"),
        // The control API's error and answer types (`ControlError`, `ControlResponse`): the
        // vocabulary that faults, recording, configuration and the control API share. Pure Swift.
        .target(name: "JSONSupport", dependencies: ["HTTPFields", "JSONInput"]),
        // The APNs domain: requests, validation, reasons, push types, environments, the device
        // registry, credential identities, verdicts, generated IDs. No I/O; its one C library
        // is yajl, to read push bodies.
        .target(name: "APNsCore", dependencies: ["HTTPFields", "CYAJL"]),
        // The legacy binary provider API and the feedback service, the pure part: the incremental
        // frame decoder (commands 0, 1, 2), the error packet, the status table, the limits, the
        // feedback tuple (docs/legacy-binary.md). No dependencies, no I/O.
        .target(name: "LegacyBinary"),
        // Virtual devices, the pure part: the device model (`VirtualDevice`), the lifecycle of an
        // accepted push on it (`DeviceLifecycle`), what the device does with a delivered push
        // (`DeviceReaction`), user interaction and the simulator's `.apns` file
        // (docs/device-model.md). No I/O; time comes in as a parameter.
        .target(name: "Devices", dependencies: ["APNsCore", "JSONInput"]),
        // Broadcast push and channel management (iOS 18), the pure part: the channel store, the
        // request checks in APNs's order, request IDs, the ActivityKit payload lints
        // (docs/broadcast.md). No I/O.
        .target(name: "Broadcast", dependencies: ["APNsCore", "HTTPFields", "JSONInput"]),
        // The fault DSL: rules, matching, the engine, scenarios, rate limits, listener conditions.
        .target(name: "Faults", dependencies: ["APNsCore", "HTTPFields", "JSONSupport", "JSONInput"]),
        // Delivery records, the compact record store, filters and stats; connection events and
        // their store (events name the fault actions they record, hence Faults).
        .target(name: "Recording", dependencies: ["APNsCore", "Faults", "JSONSupport", "JSONInput"]),
        // The per-push pipeline: `Gateway.handle` (validate, authorize, faults, record, answer) and
        // its `PushDecision`, `ActionPlan`, `PreviousRequest`, response building.
        .target(name: "Gateway", dependencies: ["APNsCore", "Faults", "Recording"]),
        // The web console's page (HTML, CSS, plain JavaScript) compiled into the binary, so that
        // `/console` works offline and from any directory (docs/console.md). No dependencies.
        .target(
            name: "Console",
            resources: [.embedInCode("console.html"), .embedInCode("console.css"), .embedInCode("console.js")]),
        // The control API: routes, request bodies, answers (records, events, faults as JSON).
        .target(
            name: "ControlAPI",
            dependencies: [
                "APNsCore", "Broadcast", "Devices", "Faults", "Recording", "JSONSupport", "JSONInput", "HTTPFields",
                "SystemSupport", "Console",
            ]),
        // The configuration file, the command line parser and its help, limits.
        .target(
            name: "Configuration",
            dependencies: [
                "APNsCore", "Broadcast", "Devices", "Faults", "JSONSupport", "JSONInput", "CommandLineOptions",
                "LegacyBinary", "Recording",
            ]),
        // HTTP/2 + TLS + event loops + the HTTP/1.1 control server. Knows nothing of APNs.
        .target(
            name: "HTTP2Transport",
            dependencies: ["HTTPFields", "CNGHTTP2", "COpenSSL", "CLibevent", "SystemSupport"]),
        // Provider authentication: JWT ES256 tokens, key registry, client-certificate identity.
        .target(name: "APNsAuth", dependencies: ["APNsCore", "COpenSSL", "SystemSupport"]),
        // The gateway assembly and the embedding API.
        .target(
            name: "MockAPNs",
            dependencies: [
                "APNsCore", "Broadcast", "Devices", "JSONInput", "JSONSupport", "Faults", "Recording", "Gateway",
                "ControlAPI",
                "Configuration", "APNsAuth", "HTTP2Transport", "LegacyBinary", "SystemSupport", "HTTP2Client",
            ]),
        // The blocking HTTP/2 client behind `mock-apns send`.
        .target(
            name: "HTTP2Client",
            dependencies: [
                "HTTPFields", "CNGHTTP2", "COpenSSL", "JSONInput", "SystemSupport", "CommandLineOptions",
                "LegacyBinary",
            ]),
        // Swift tests over an in-process MockAPNsServer: async waits and verification with near
        // misses (POST /v1/verify's rules), and `TestPushClient`, the HTTP/2 client trusting the
        // server's certificate. Re-exports MockAPNs and HTTP2Client.
        .target(name: "MockAPNsTesting", dependencies: ["MockAPNs", "HTTP2Client", "HTTPFields"]),
        // `mock-apns jwt`, and `send` signing provider tokens: APNsAuth's signer plus the client;
        // `export-apns`, a recorded push as a Simulator .apns file from the control API.
        .target(name: "APNsTools", dependencies: ["APNsAuth", "Devices", "HTTP2Client", "CommandLineOptions"]),
        .executableTarget(
            name: "mock-apns",
            dependencies: [
                "MockAPNs", "APNsAuth", "APNsCore", "Configuration", "HTTP2Client", "HTTP2Transport",
                "APNsTools", "SystemSupport",
            ]),
        .testTarget(name: "MockAPNsTestingTests", dependencies: ["MockAPNsTesting", "TestSupport"]),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore", "TestFixtures"]),
        .testTarget(name: "LegacyBinaryTests", dependencies: ["LegacyBinary"]),
        .testTarget(name: "BroadcastTests", dependencies: ["Broadcast", "APNsCore", "HTTPFields", "JSONInput"]),
        .testTarget(name: "DevicesTests", dependencies: ["Devices", "APNsCore", "JSONInput"]),
        .testTarget(name: "HTTPFieldsTests", dependencies: ["HTTPFields"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console"]),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "COpenSSL"]),
        .testTarget(name: "JSONInputTests", dependencies: ["JSONInput"]),
        .testTarget(name: "JSONSupportTests", dependencies: ["JSONSupport"]),
        .testTarget(
            name: "FaultsTests", dependencies: ["Faults", "APNsCore", "JSONInput", "JSONSupport", "TestFixtures"]),
        .testTarget(
            name: "RecordingTests",
            dependencies: ["Recording", "APNsCore", "Faults", "JSONInput", "JSONSupport", "TestFixtures"]),
        .testTarget(
            name: "GatewayTests",
            dependencies: ["Gateway", "APNsCore", "Faults", "Recording", "JSONSupport", "TestFixtures"]),
        .testTarget(
            name: "ControlAPITests",
            dependencies: [
                "ControlAPI", "APNsCore", "Broadcast", "Devices", "Faults", "Recording", "JSONInput", "JSONSupport",
                "TestFixtures",
            ]),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: [
                "Configuration", "APNsCore", "Broadcast", "Devices", "Faults", "JSONInput", "JSONSupport",
                "TestSupport",
            ]),
        .testTarget(name: "APNsAuthTests", dependencies: ["APNsAuth", "APNsCore", "TestSupport"]),
        // Helpers shared by the test targets (running clients, raw sockets).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Builders of records, events, fault rules and requests shared by the domain test targets.
        .target(
            name: "TestFixtures",
            dependencies: ["APNsCore", "Faults", "Recording", "ControlAPI", "JSONSupport", "HTTP2Transport"],
            path: "Tests/TestFixtures"),
        .testTarget(name: "HTTP2TransportTests", dependencies: ["HTTP2Transport", "CNGHTTP2", "TestSupport"]),
        .testTarget(name: "HTTP2ClientTests", dependencies: ["HTTP2Client", "HTTPFields", "LegacyBinary"]),
        .testTarget(name: "APNsToolsTests", dependencies: ["APNsTools", "APNsAuth", "HTTP2Client", "TestSupport"]),
        .testTarget(
            name: "MockAPNsTests",
            dependencies: [
                "MockAPNs", "APNsCore", "Broadcast", "Configuration", "ControlAPI", "Devices", "Gateway", "HTTP2Client",
                "HTTPFields", "TestSupport", "LegacyBinary", "APNsAuth", "Faults",
            ]),
    ]
)

// The libFuzzer harnesses (fuzz/, docs/fuzzing.md): declared only when MOCK_APNS_FUZZ is set, as
// `fuzz/run.sh` does, because each is an executable whose `main` is libFuzzer's (built with
// `-sanitize=fuzzer,address -parse-as-library`); a plain `swift build` never sees them.
if Context.environment["MOCK_APNS_FUZZ"] != nil {
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("LegacyBinaryFuzz", ["LegacyBinary"]),
        ("PushValidationFuzz", ["APNsCore", "HTTPFields", "Recording"]),
        ("ControlAPIFuzz", ["ControlAPI", "APNsCore", "HTTP2Transport", "JSONSupport", "Recording"]),
        ("ConfigurationFuzz", ["Configuration"]),
        ("FaultRuleFuzz", ["Faults"]),
        ("BroadcastFuzz", ["Broadcast", "APNsCore", "HTTPFields"]),
        ("ProviderTokenFuzz", ["APNsAuth"]),
        ("CertificateFuzz", ["APNsAuth"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "fuzz/Harnesses/FuzzSupport"))
    for harness in harnesses {
        package.targets.append(
            .executableTarget(
                name: harness.name, dependencies: ["FuzzSupport"] + harness.dependencies,
                path: "fuzz/Harnesses/\(harness.name)"))
    }
}
