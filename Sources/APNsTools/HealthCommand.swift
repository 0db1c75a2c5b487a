import CommandLineOptions
import Foundation
import HTTP2Client

/// `mock-apns health [--control URL]`: asks a running server's control API whether it is healthy
/// (`GET /v1/health`), for container health checks (the Dockerfile's `HEALTHCHECK`) and scripts;
/// no curl needed. README "Running in containers".
///
/// Exit status: 0 when the server answers 200 with `"status":"ok"` (a line on standard output
/// says its version, listeners and uptime); 1 when it cannot be reached, answers anything else,
/// or not within 5 seconds (a line on standard error says which); 2 on usage errors.
public enum HealthCommand {
    /// The options; no positional argument.
    static let scanner = OptionScanner(options: [.init(name: "--control", value: "URL")], takesPositional: false)

    /// `mock-apns health --help`.
    public static let help = """
        Usage: mock-apns health [--control URL]

        Exits 0 when the MockAPNs control API at URL answers GET /v1/health with
        "status":"ok", and 1 with a message otherwise (not reachable, another answer,
        no answer within 5 s): a container HEALTHCHECK without curl.

          --control URL   the running server's control API (default \(ExportAPNsCommand.defaultControl))
        """

    /// Runs the command with the arguments after `health`, on the console and the network.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, output: .console, fetch: ExportAPNsCommand.httpGet)
    }

    /// Runs the command, writing to `output` and fetching with `fetch`.
    public static func run(_ arguments: [String], output: SendOutput, fetch: ExportAPNsCommand.Fetch) -> Int32 {
        let scanned: OptionScanner.Scanned
        switch SubcommandStart(arguments, name: "health", scanner: scanner, help: help, output: output) {
        case .run(let options): scanned = options
        case .exit(let code): return code
        }
        let base = scanned.values["--control"]?.first ?? ExportAPNsCommand.defaultControl
        guard
            let url = URL(string: base.hasSuffix("/") ? "\(base)v1/health" : "\(base)/v1/health"),
            url.scheme == "http" || url.scheme == "https", url.host != nil
        else {
            output.standardError(
                "mock-apns health: --control: expected a URL like \(ExportAPNsCommand.defaultControl), got '\(base)'")
            return 2
        }
        switch fetch(url) {
        case .failure(let error):
            output.standardError("mock-apns health: unhealthy: cannot reach \(url.absoluteString): \(error.message)")
            return 1
        case .success(let answer):
            let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
            guard answer.status == 200, let object, object["status"] as? String == "ok" else {
                let text = String(decoding: answer.body.prefix(200), as: UTF8.self)
                output.standardError(
                    "mock-apns health: unhealthy: \(url.absoluteString) answered \(answer.status): \(text)")
                return 1
            }
            let version = object["version"] as? String ?? "?"
            let listeners = (object["listeners"] as? [Any])?.count ?? 0
            let uptime = (object["uptimeMs"] as? Int).map { " up \($0 / 1000) s," } ?? ""
            output.standardOutput(
                "mock-apns health: healthy: MockAPNs \(version),\(uptime) \(listeners) listener\(listeners == 1 ? "" : "s")"
            )
            return 0
        }
    }
}
