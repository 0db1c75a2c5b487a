// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MockAPNs",
    products: [
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        .executable(name: "mock-apns", targets: ["mock-apns"]),
    ],
    targets: [
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        // yajl, the event-driven JSON parser behind the push path's payload check (PayloadScanner).
        .systemLibrary(name: "CYAJL", pkgConfig: "yajl",
                       providers: [.apt(["libyajl-dev"])]),
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent_pthreads",
                       providers: [.apt(["libevent-dev"])]),
        // `HeaderField`, shared by the transport and the APNs domain so that a push's header
        // fields cross between them without conversion. No dependencies.
        .target(name: "HTTPFields"),
        // Strict JSON input for configuration files and control-API bodies: Foundation parses,
        // this refuses unknown and duplicate keys and words errors with field paths and
        // line/column. Foundation only.
        .target(name: "JSONInput"),
        // The APNs domain: no I/O; its one C library is yajl, to read push bodies.
        .target(name: "APNsCore", dependencies: ["HTTPFields", "CYAJL"]),
        // HTTP/2 + TLS + event loops + the HTTP/1.1 control server. Knows nothing of APNs.
        .target(name: "HTTP2Transport",
                dependencies: ["HTTPFields", "CNGHTTP2", "COpenSSL", "CLibevent"]),
        // Provider authentication: JWT ES256 tokens, key registry, client-certificate identity.
        .target(name: "APNsAuth", dependencies: ["APNsCore", "COpenSSL"]),
        // The gateway assembly and the embedding API.
        .target(name: "MockAPNs", dependencies: ["APNsCore", "APNsAuth", "HTTP2Transport"]),
        // The blocking HTTP/2 client behind `mock-apns send`.
        .target(name: "HTTP2Client", dependencies: ["CNGHTTP2", "COpenSSL"]),
        // `mock-apns jwt`, and `send` signing provider tokens: APNsAuth's signer plus the client.
        .target(name: "APNsTools", dependencies: ["APNsAuth", "HTTP2Client"]),
        .executableTarget(name: "mock-apns",
                          dependencies: ["MockAPNs", "APNsAuth", "APNsCore", "HTTP2Client", "HTTP2Transport", "APNsTools"]),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore"]),
        .testTarget(name: "JSONInputTests", dependencies: ["JSONInput"]),
        .testTarget(name: "APNsAuthTests", dependencies: ["APNsAuth", "APNsCore", "TestSupport"]),
        // Helpers shared by the test targets (running clients, raw sockets).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTP2TransportTests", dependencies: ["HTTP2Transport", "CNGHTTP2", "TestSupport"]),
        .testTarget(name: "HTTP2ClientTests", dependencies: ["HTTP2Client"]),
        .testTarget(name: "APNsToolsTests", dependencies: ["APNsTools", "APNsAuth", "TestSupport"]),
        .testTarget(name: "MockAPNsTests", dependencies: ["MockAPNs", "APNsCore", "TestSupport"]),
    ]
)
