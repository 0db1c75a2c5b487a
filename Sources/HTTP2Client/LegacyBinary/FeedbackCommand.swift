import CommandLineOptions
import LegacyBinary

/// `mock-apns feedback HOST:PORT`: reads the feedback service (docs/legacy-binary.md §4) and
/// prints one line per tuple, `TIMESTAMP TOKEN` (UNIX seconds, lowercase hexadecimal), then how
/// many. Exit status: 0 when the service closed after its tuples, 1 on a connection failure or
/// trailing bytes that form no tuple, 2 on usage errors.
public enum FeedbackCommand {
    static let scanner = OptionScanner(options: BinaryClientArguments.tlsOptions, takesPositional: true)

    /// The help text.
    public static let help = """
        usage: mock-apns feedback HOST:PORT [--cacert FILE | --insecure] [--cert FILE [--cert-key FILE]] [--timeout SECONDS]

        Connects to a feedback service (Apple's retired port 2196) and prints what it sends: one
        line per unregistered device token, TIMESTAMP TOKEN.
        """

    /// Runs the command with the arguments after `feedback`, writing to `output`.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], output: SendOutput = .console) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            output.standardOutput(help)
            return 0
        }
        let address: (host: String, port: Int)
        let client: BinaryClientArguments
        do throws(SendUsageError) {
            let scanned: OptionScanner.Scanned
            do {
                scanned = try scanner.scan(arguments)
            } catch {
                throw SendUsageError(error.message)
            }
            guard scanned.positional.count == 1 else { throw SendUsageError("give HOST:PORT, once") }
            address = try BinaryClientArguments.address(scanned.positional[0], option: "HOST:PORT")
            client = try BinaryClientArguments(scanned.values)
        } catch {
            output.standardError("mock-apns feedback: \(error.description)")
            return 2
        }
        let connection: LegacyBinaryClient
        do {
            connection = try LegacyBinaryClient.connect(
                host: address.host, port: address.port, tls: client.tls, timeout: client.timeout)
        } catch {
            output.standardError("mock-apns feedback: cannot connect to \(address.host):\(address.port): \(error)")
            return 1
        }
        defer { connection.close() }
        let (bytes, closed) = connection.readUntilClosed(waiting: client.timeout)
        let (tuples, leftover) = FeedbackTuple.decodeAll(bytes)
        for tuple in tuples {
            output.standardOutput("\(tuple.timestamp) \(BinaryHex.encode(tuple.token))")
        }
        output.standardOutput("\(tuples.count) tuple(s)")
        if leftover > 0 {
            output.standardError("mock-apns feedback: \(leftover) trailing bytes form no tuple")
            return 1
        }
        if !closed {
            output.standardError("mock-apns feedback: the service did not close within \(client.timeout) s")
            return 1
        }
        return 0
    }
}
