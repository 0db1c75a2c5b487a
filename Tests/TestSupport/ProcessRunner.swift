import Foundation

/// Runs a command-line client (curl, nghttp) to completion, for live tests.
public enum ProcessRunner {
    /// Exit status and both outputs of one run.
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `tool` with `arguments` and waits for it.
    public static func run(_ tool: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
