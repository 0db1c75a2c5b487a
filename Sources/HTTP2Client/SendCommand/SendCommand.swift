import Foundation
import Glibc

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
        let commandLine: SendCommandLine
        do {
            commandLine = try SendArgumentParser.parse(arguments)
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
            output.standardError("mock-apns send: cannot connect to \(options.url): \(error)")
            return 1
        }
        defer { connection.close() }
        let request = SendRequestBuilder.request(options, payload: payload)
        let concurrency = min(options.concurrency, options.count)
        let started = MonotonicClock.nanoseconds()
        let results = connection.send(Array(repeating: request, count: options.count),
                                      concurrency: concurrency, timeout: options.timeout)
        let elapsed = MonotonicClock.milliseconds(since: started)

        if options.count == 1, let result = results.first {
            SendReport.lines(for: result, goAway: connection.goAway).forEach(output.standardOutput)
        } else {
            let summary = SendSummary(results: results, elapsed: elapsed)
            summary.lines(connection: describe(connection, concurrency: concurrency), goAway: connection.goAway)
                .forEach(output.standardOutput)
        }
        return results.allSatisfy { $0.response?.status == 200 } ? 0 : 1
    }

    /// `https://host:port over 1 connection (TLSv1.3, h2, connected in 3.1 ms), concurrency 10`.
    static func describe(_ connection: HTTP2ClientConnection, concurrency: Int) -> String {
        let security = connection.tlsVersion.map { "\($0), \(connection.alpn ?? "h2")" } ?? "cleartext h2"
        return "\(connection.endpoint) over 1 connection (\(security), connected in "
            + "\(SendSummary.format(connection.connectTime, 1)) ms), concurrency \(concurrency)"
    }

    /// Fails when `--key` reached a caller without a signer: sending without the token would
    /// quietly test the wrong thing.
    private static func checkSigned(_ options: SendOptions) throws(SendUsageError) {
        guard options.providerKey != nil else { return }
        throw SendUsageError("--key needs the provider-token signer of the mock-apns executable "
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
