import Foundation
import Glibc
import SystemSupport

/// `mock-apns send`: sends a push notification (or `--count` of them) over one HTTP/2
/// connection and prints the answer or a summary.
///
/// Exit status: 0 when every response is 200, 1 otherwise (error statuses, resets, no
/// response, connection failure), 2 on usage errors.
///
/// Provider tokens plug in between parsing and execution: `--key FILE --key-id ID --team-id ID`
/// parses into `SendOptions.providerKey`; a signer outside this module (which knows no JWT;
/// APNsTools' `SendWithKeyCommand`) sets `SendOptions.authorization` to `bearer <JWT>`, clears
/// `providerKey`, then calls `execute`.
public enum SendCommand {
    /// Runs `mock-apns send` with the arguments after `send`, writing to the console.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, output: .console)
    }

    /// Runs `mock-apns send` with the arguments after `send`, writing to `output`. `--key` is a
    /// usage error here: signing is APNsTools' `SendWithKeyCommand`.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], output: SendOutput) -> Int32 {
        run(arguments, output: output, parse: SendArgumentParser.parse)
    }

    /// Runs `mock-apns send` with a parser of the caller's (e.g. one that also signs a provider
    /// token): usage errors exit 2, `--help` prints, a send line executes.
    /// - Returns: the exit status.
    public static func run(
        _ arguments: [String], output: SendOutput,
        parse: ([String]) throws(SendUsageError) -> SendCommandLine
    ) -> Int32 {
        let commandLine: SendCommandLine
        do {
            commandLine = try parse(arguments)
        } catch {
            output.standardError(error.description)
            return 2
        }
        switch commandLine {
        case .help(let text):
            output.standardOutput(text)
            return 0
        case .send(let options):
            return execute(options, output: output)
        }
    }

    /// Sends the notification `options.count` times and reports.
    /// - Returns: the exit status; 2 when `options.providerKey` is still set (unsigned).
    public static func execute(_ options: SendOptions, output: SendOutput) -> Int32 {
        let payload: [UInt8]
        do {
            try checkSigned(options)
            try checkReadable(options.tls)
            payload = try load(options.payload)
        } catch {
            output.standardError(error.description)
            return 2
        }
        let connection: HTTP2ClientConnection
        do {
            connection = try HTTP2ClientConnection.connect(url: options.url, tls: options.tls, timeout: options.timeout)
        } catch {
            output.standardError("mock-apns send: cannot connect to \(options.url): \(explain(error))")
            return 1
        }
        defer { connection.close() }
        let request = SendRequestBuilder.request(options, payload: payload)
        let concurrency = min(options.concurrency, options.count)
        let started = MonotonicClock.nanoseconds()
        let results = connection.send(
            Array(repeating: request, count: options.count),
            concurrency: concurrency, timeout: options.timeout)
        let elapsed = MonotonicClock.milliseconds(since: started)

        if options.count == 1, let result = results.first {
            SendReport.lines(for: result, goAway: connection.goAway, showsBody: options.channelAction != nil)
                .forEach(output.standardOutput)
        } else {
            let summary = SendSummary(results: results, elapsed: elapsed)
            summary.lines(connection: describe(connection, concurrency: concurrency), goAway: connection.goAway)
                .forEach(output.standardOutput)
        }
        // A channel request succeeds with 200, 201 or 204; a push with 200.
        let succeeded: (Int) -> Bool = options.channelAction == nil ? { $0 == 200 } : { $0 / 100 == 2 }
        return results.allSatisfy { $0.response.map { succeeded($0.status) } ?? false } ? 0 : 1
    }

    /// `https://host:port over 1 connection (TLSv1.3, h2, connected in 3.1 ms), concurrency 10`.
    static func describe(_ connection: HTTP2ClientConnection, concurrency: Int) -> String {
        let security = connection.tlsVersion.map { "\($0), \(connection.alpn ?? "h2")" } ?? "cleartext h2"
        return "\(connection.endpoint) over 1 connection (\(security), connected in "
            + "\(SendSummary.format(connection.connectTime, 1)) ms), concurrency \(concurrency)"
    }

    /// A connection error in the command's terms: with the flag that fixes it, where there is
    /// one (`--cert-key`, `--cacert`, `--insecure`); otherwise the error's own text.
    public static func explain(_ error: HTTP2ClientError) -> String {
        switch error {
        case .clientKeyMissing(let path, inCertificateFile: true):
            return "the certificate file \(path) holds no private key: pass the key with --cert-key FILE"
        case .clientKeyMissing(let path, inCertificateFile: false):
            return
                "the --cert-key file \(path) holds no private key (it takes the PEM private key of the --cert certificate)"
        case .tlsVerificationFailed(let reason) where reason.contains("mismatch"):
            // "hostname mismatch", "IP address mismatch": the chain is trusted, the name is not in it.
            return "\(error) (the server's certificate does not name this host; connect to a name or address "
                + "it lists, e.g. localhost or 127.0.0.1 for MockAPNs's test certificate, or skip verification with --insecure)"
        case .tlsVerificationFailed:
            return "\(error) (trust the server's CA with --cacert FILE, e.g. tls/ca.pem for MockAPNs's test "
                + "certificate, or skip verification with --insecure)"
        default:
            return error.description
        }
    }

    /// Fails when `--key` reached a caller without a signer: sending without the token would
    /// quietly test the wrong thing.
    private static func checkSigned(_ options: SendOptions) throws(SendUsageError) {
        guard options.providerKey != nil else { return }
        throw SendUsageError(
            "--key needs the provider-token signer of the mock-apns executable "
                + "(run 'mock-apns send'); or give --authorization 'bearer <JWT>' from 'mock-apns jwt'")
    }

    /// Fails with a usage error naming the first TLS file that cannot be read.
    private static func checkReadable(_ tls: HTTP2ClientTLSOptions) throws(SendUsageError) {
        let files = [("--cacert", tls.caCertificatePath), ("--cert", tls.certificatePath), ("--cert-key", tls.keyPath)]
        for case let (flag, path?) in files where access(path, R_OK) != 0 {
            throw SendUsageError("\(flag): cannot read \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The payload bytes from the argument, a file or standard input.
    private static func load(_ payload: SendPayload) throws(SendUsageError) -> [UInt8] {
        switch payload {
        case .inline(let text):
            return Array(text.utf8)
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                let reason = access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "not a readable file"
                throw SendUsageError("cannot read the payload file \(path): \(reason)")
            }
            return Array(data)
        case .standardInput:
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        }
    }
}
