import Foundation
import XCTest

/// A server program (nghttpd, openssl s_server) started on a free loopback port for one test.
/// `stop` (call it in tearDown) terminates it and removes its temporary directory.
final class ExternalServer {
    /// The port it listens on.
    let port: Int
    /// Its working directory; nghttpd's document root.
    let directory: String
    private let process: Process

    /// Starts `executable` with `arguments(port, directory)` and waits until the port accepts
    /// connections; tries a new port when the chosen one was taken meanwhile.
    init(executable: String, arguments: (Int, String) -> [String]) throws {
        directory = TestFixtures.temporaryDirectory()
        var lastError = "not started"
        for _ in 0..<5 {
            let port = TestFixtures.freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments(port, directory)
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = Pipe()  // s_server reads commands from stdin; keep it open
            try process.run()
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline && process.isRunning && !TestFixtures.accepts(port: port) {
                usleep(20_000)
            }
            if process.isRunning && TestFixtures.accepts(port: port) {
                self.port = port
                self.process = process
                return
            }
            lastError = "\(executable) did not listen on port \(port)"
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw ExternalServerError(description: lastError)
    }

    /// nghttpd on a free port: TLS with the repository's server certificate, or cleartext.
    /// `extra` adds options (e.g. `-V` to request a client certificate).
    static func nghttpd(tls: Bool, extra: [String] = []) throws -> ExternalServer {
        let executable = "/usr/sbin/nghttpd"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            // make test installs it (scripts/install-deps.sh): missing means a broken set-up, not a pass.
            throw ExternalServerError(description: "nghttpd is not installed (Debian package nghttp2-server)")
        }
        return try ExternalServer(executable: executable) { port, directory in
            var arguments = ["-d", directory] + extra
            if tls {
                arguments += [String(port), TestFixtures.serverKeyPath, TestFixtures.serverCertificatePath]
            } else {
                arguments += ["--no-tls", String(port)]
            }
            return arguments
        }
    }

    /// Writes `contents` to `path` under the directory (nghttpd answers 200 for it).
    func writeFile(_ path: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: directory + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    /// Terminates the process and removes the directory.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A test's server could not be had: the test fails with this, it never counts as skipped.
struct ExternalServerError: Error, CustomStringConvertible {
    var description: String
}
