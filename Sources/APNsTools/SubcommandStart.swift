import CommandLineOptions
import HTTP2Client

/// How a small subcommand (`export-apns`, `health`) starts: `--help` prints its help and ends it
/// with 0; options its scanner refuses end it with 2 and `mock-apns <name>: <message> (see --help)`;
/// otherwise it runs with what was scanned.
enum SubcommandStart {
    case run(OptionScanner.Scanned)
    case exit(Int32)

    init(_ arguments: [String], name: String, scanner: OptionScanner, help: String, output: SendOutput) {
        if arguments.contains("--help") || arguments.contains("-h") {
            output.standardOutput(help)
            self = .exit(0)
            return
        }
        do {
            self = .run(try scanner.scan(arguments))
        } catch {
            output.standardError("mock-apns \(name): \(error.message) (see --help)")
            self = .exit(2)
        }
    }
}
