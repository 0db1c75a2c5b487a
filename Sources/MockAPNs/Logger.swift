import APNsCore
import Configuration
import Foundation

/// Writes log lines to standard error at or above a level. Cheap when a level is off: callers
/// pass an autoclosure, built only when the line will be written.
struct Logger: Sendable {
    let level: LogLevel

    func log(_ lineLevel: LogLevel, _ message: @autoclosure () -> String) {
        guard lineLevel <= level else { return }
        FileHandle.standardError.write(Data("mock-apns [\(lineLevel.rawValue)] \(message())\n".utf8))
    }
}
