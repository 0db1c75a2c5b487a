import Foundation

/// Where `mock-apns send` writes: one line per call, newline added.
public struct SendOutput {
    /// Receives answer and summary lines.
    public var standardOutput: (String) -> Void
    /// Receives error messages.
    public var standardError: (String) -> Void

    /// Creates an output from two line sinks (tests collect lines this way).
    public init(standardOutput: @escaping (String) -> Void, standardError: @escaping (String) -> Void) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's standard output and standard error.
    public static var console: SendOutput {
        SendOutput(
            standardOutput: { line in
                print(line)
            },
            standardError: { line in
                fflush(nil)  // flush stdout first: keeps interleaved lines in order
                FileHandle.standardError.write(Data((line + "\n").utf8))
            })
    }
}
