import CommandLineOptions
import Devices
import Foundation
import HTTP2Client
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `mock-apns export-apns SEQ`: fetches a recorded push as the Simulator's `.apns` file from a
/// running server's control API (`GET /v1/deliveries/{seq}/apns`, docs/device-model.md §6, §7),
/// checks it against `simctl push`'s rules (`SimulatorPushFile.problems`) and writes it to
/// standard output or `--output FILE`, for `xcrun simctl push booted FILE`.
///
/// Exit status: 0 when written, 1 when the server refuses (its error is printed) or cannot be
/// reached, or the file fails the check, 2 on usage errors.
public enum ExportAPNsCommand {
    /// The options; the one positional argument is the record's seq.
    static let scanner = OptionScanner(
        options: [.init(name: "--control", value: "URL"), .init(name: "--output", value: "FILE")],
        takesPositional: true)

    /// The control API's default base URL (the server's default `--control`).
    public static let defaultControl = "http://127.0.0.1:8197"

    /// `mock-apns export-apns --help`.
    public static let help = """
        Usage: mock-apns export-apns SEQ [--control URL] [--output FILE]

        Writes the push recorded as SEQ (a delivery record's seq) as a Simulator .apns file:
        its payload plus "Simulator Target Bundle" (the record's apns-topic), for
        `xcrun simctl push booted FILE`. Only alert and background pushes can be exported.

          --control URL   the running server's control API (default \(defaultControl))
          --output FILE   write the file there (default: standard output)
        """

    /// An HTTP GET: the status and body, or why it could not be made.
    public typealias Fetch = @Sendable (URL) -> Result<(status: Int, body: [UInt8]), FetchError>

    /// Why a GET could not be made.
    public struct FetchError: Error, Sendable {
        /// The transport's message.
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    /// Runs the command with the arguments after `export-apns`, on the console and the network.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, output: .console, fetch: httpGet)
    }

    /// Runs the command, writing lines to `output` (the file itself, when no `--output`, as one
    /// line) and fetching with `fetch`.
    public static func run(_ arguments: [String], output: SendOutput, fetch: Fetch) -> Int32 {
        let scanned: OptionScanner.Scanned
        switch SubcommandStart(arguments, name: "export-apns", scanner: scanner, help: help, output: output) {
        case .run(let options): scanned = options
        case .exit(let code): return code
        }
        guard scanned.positional.count == 1, let seq = UInt64(scanned.positional[0]), seq > 0 else {
            output.standardError(
                "mock-apns export-apns: expected one SEQ, a delivery record's sequence number (see --help), got "
                    + (scanned.positional.isEmpty ? "none" : scanned.positional.joined(separator: " ")))
            return 2
        }
        let base = scanned.values["--control"]?.first ?? defaultControl
        guard
            let url = URL(
                string: base.hasSuffix("/") ? "\(base)v1/deliveries/\(seq)/apns" : "\(base)/v1/deliveries/\(seq)/apns"),
            url.scheme == "http" || url.scheme == "https", url.host != nil
        else {
            output.standardError(
                "mock-apns export-apns: --control: expected a URL like \(defaultControl), got '\(base)'")
            return 2
        }
        let body: [UInt8]
        switch fetch(url) {
        case .failure(let error):
            output.standardError("mock-apns export-apns: cannot reach \(base): \(error.message)")
            return 1
        case .success(let answer) where answer.status != 200:
            let message =
                ((try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any])?["error"] as? String
                ?? String(decoding: answer.body, as: UTF8.self)
            output.standardError("mock-apns export-apns: the server answered \(answer.status): \(message)")
            return 1
        case .success(let answer):
            body = answer.body
        }
        let problems = SimulatorPushFile.problems(in: body)
        guard problems.isEmpty else {
            output.standardError("mock-apns export-apns: not a valid .apns file: " + problems.joined(separator: "; "))
            return 1
        }
        guard let path = scanned.values["--output"]?.first else {
            output.standardOutput(String(decoding: body, as: UTF8.self))
            return 0
        }
        do {
            try Data(body).write(to: URL(fileURLWithPath: path))
        } catch {
            output.standardError("mock-apns export-apns: cannot write \(path): \(error.localizedDescription)")
            return 1
        }
        return 0
    }

    /// A blocking GET with Foundation's URL loading (5 s timeout), carrying the environment's
    /// `MOCK_APNS_CONTROL_TOKEN` as `Authorization: Bearer` when set (README "Security").
    static let httpGet: Fetch = { url in
        let result = Mutex<Result<(status: Int, body: [UInt8]), FetchError>>(.failure(FetchError("no answer")))
        let done = DispatchSemaphore(value: 0)
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        if let token = ProcessInfo.processInfo.environment["MOCK_APNS_CONTROL_TOKEN"], !token.isEmpty {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            let outcome: Result<(status: Int, body: [UInt8]), FetchError>
            if let error {
                outcome = .failure(FetchError(error.localizedDescription))
            } else {
                outcome = .success(((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](data ?? Data())))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        task.resume()
        done.wait()
        return result.withLock { $0 }
    }
}
