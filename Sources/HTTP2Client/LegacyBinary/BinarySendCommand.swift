import CommandLineOptions
import LegacyBinary

/// `mock-apns send --binary HOST:PORT`: PushMeBaby for Linux. Sends notifications in the legacy
/// binary protocol (command 0, 1 or 2; docs/legacy-binary.md), then waits `--wait` seconds for an
/// error packet: none is the gateway's "accepted".
///
/// Exit status: 0 when no error packet came and the connection stayed open, 1 on an error packet,
/// a close without one (command 0's sever) or a connection failure, 2 on usage errors.
public enum BinarySendCommand {
    private typealias Option = OptionScanner.Option

    static let scanner = OptionScanner(
        options: [
            Option(name: "--binary", value: "HOST:PORT"), Option(name: "--device-token", value: "TOKEN"),
            Option(name: "--command", value: "0|1|2"), Option(name: "--identifier", value: "N"),
            Option(name: "--expiration", value: "SECONDS"), Option(name: "--priority", value: "5|10"),
            Option(name: "--count", value: "N"), Option(name: "--wait", value: "SECONDS"),
        ] + BinaryClientArguments.tlsOptions, takesPositional: true)

    /// PushMeBaby's default payload.
    public static let defaultPayload = #"{"aps":{"alert":"This is some fancy message.","badge":1}}"#

    /// The help text.
    public static let help = """
        usage: mock-apns send --binary HOST:PORT --device-token HEX [options] [PAYLOAD]

        Sends legacy binary notifications (Apple's retired port 2195 protocol) and reports the
        error packet, if any. PAYLOAD defaults to PushMeBaby's \(defaultPayload)

          --command 0|1|2       0 simple, 1 enhanced, 2 framed (items 1-5). Default 2.
          --identifier N        the first notification's identifier (commands 1, 2). Default 1.
          --expiration SECONDS  the expiry, UNIX seconds (commands 1, 2; 0: do not store).
          --priority 5|10       item 5 (command 2).
          --count N             send N notifications in one write, identifiers counting up. Default 1.
          --wait SECONDS        how long to wait for an error packet. Default 1.
          --cacert FILE, --insecure, --cert FILE, --cert-key FILE, --timeout SECONDS   as mock-apns send.
        """

    /// Runs the command with the arguments after `send`, writing to `output`.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], output: SendOutput = .console) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            output.standardOutput(help)
            return 0
        }
        let plan: (host: String, port: Int, client: BinaryClientArguments, frames: [UInt8], count: Int, wait: Double)
        do {
            plan = try parse(arguments)
        } catch {
            output.standardError("mock-apns send --binary: \(error.description)")
            return 2
        }
        let client: LegacyBinaryClient
        do {
            client = try LegacyBinaryClient.connect(
                host: plan.host, port: plan.port, tls: plan.client.tls, timeout: plan.client.timeout)
        } catch {
            output.standardError("mock-apns send --binary: cannot connect to \(plan.host):\(plan.port): \(error)")
            return 1
        }
        defer { client.close() }
        do {
            try client.write(plan.frames, timeout: plan.client.timeout)
        } catch {
            output.standardError("mock-apns send --binary: \(error)")
            return 1
        }
        output.standardOutput("sent \(plan.count) notification(s), \(plan.frames.count) bytes")
        let (answer, closed) = client.readUntilClosed(waiting: plan.wait)
        if answer.count >= BinaryErrorPacket.length,
            let packet = BinaryErrorPacket(bytes: Array(answer.prefix(BinaryErrorPacket.length)))
        {
            output.standardOutput(
                "error packet: status \(packet.status.rawValue) (\(packet.status)), identifier \(packet.identifier)")
            return 1
        }
        if closed {
            output.standardOutput("the gateway closed the connection without an error packet")
            return 1
        }
        output.standardOutput("no error packet within \(plan.wait) s: accepted")
        return 0
    }

    private static func parse(_ arguments: [String]) throws(SendUsageError) -> (
        host: String, port: Int, client: BinaryClientArguments, frames: [UInt8], count: Int, wait: Double
    ) {
        let scanned: OptionScanner.Scanned
        do {
            scanned = try scanner.scan(arguments)
        } catch {
            throw SendUsageError(error.message)
        }
        let values = scanned.values
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(SendUsageError) -> Int? {
            guard let text = values[name]?.first else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw SendUsageError("\(name): expected an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        guard let addressText = values["--binary"]?.first else {
            throw SendUsageError("--binary HOST:PORT is required")
        }
        let address = try BinaryClientArguments.address(addressText, option: "--binary")
        guard let tokenText = values["--device-token"]?.first else {
            throw SendUsageError("--device-token is required")
        }
        guard let token = BinaryHex.decode(tokenText.filter { $0 != " " && $0 != "<" && $0 != ">" }) else {
            throw SendUsageError("--device-token: expected hexadecimal, got '\(tokenText)'")
        }
        let command = BinaryCommand(rawValue: UInt8(try integer("--command", 0...2) ?? 2)) ?? .framed
        let first = UInt32(try integer("--identifier", 0...Int(UInt32.max)) ?? 1)
        let expiry = try integer("--expiration", 0...Int(UInt32.max)).map(UInt32.init)
        let priority = try integer("--priority", 0...255).map(UInt8.init)
        if let priority, priority != 5 && priority != 10 { throw SendUsageError("--priority: expected 5 or 10") }
        let count = try integer("--count", 1...100_000) ?? 1
        guard scanned.positional.count <= 1 else { throw SendUsageError("give one PAYLOAD at most") }
        let payload = Array((scanned.positional.first ?? defaultPayload).utf8)
        var wait = 1.0
        if let text = values["--wait"]?.first {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw SendUsageError("--wait: expected a number of seconds, got '\(text)'")
            }
            wait = seconds
        }
        var frames: [UInt8] = []
        for index in 0..<count {
            let identifier = first &+ UInt32(truncatingIfNeeded: index)
            frames += BinaryFrameEncoder.encode(
                BinaryNotification(
                    command: command, identifier: command == .simple ? nil : identifier,
                    expiry: command == .enhanced ? (expiry ?? 0) : expiry,
                    priority: command == .framed ? priority : nil,
                    token: token, payload: payload))
        }
        return (address.host, address.port, try BinaryClientArguments(values), frames, count, wait)
    }
}
