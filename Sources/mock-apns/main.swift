import APNsAuth
import APNsCore
import APNsTools
import Configuration
import Foundation
import HTTP2Transport
import MockAPNs
import SystemSupport

/// `mock-apns`: parse the command line, start the gateway, print where it listens, and stop
/// gracefully on SIGINT, SIGTERM, SIGHUP or SIGUSR1 (exit 0; README "Development"). Usage errors
/// exit 2; start-up failures exit 1.

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// Why `path` cannot be read as a file ("No such file or directory", "Permission denied",
/// "is a directory"), or nil when it can.
func unreadableFileReason(_ path: String) -> String? {
    guard access(path, R_OK) == 0 else { return String(cString: strerror(errno)) }
    var info = stat()
    if stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return "is a directory" }
    return nil
}

// `send` (the HTTP/2 client, a pushMeBaby for HTTP/2) and `jwt` are APNsTools'; everything else serves.
if let tool = CommandLine.arguments.dropFirst().first,
    let status = APNsTools.main(command: tool, arguments: Array(CommandLine.arguments.dropFirst(2)))
{
    exit(status)
}

let command: CommandLineCommand
do {
    command = try CommandLineParser.parse(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail("\(error)", status: 2)
}

switch command {
case .help(let text):
    print(text)
case .version(let text):
    print(text)
case .serve(let configuration):
    for listener in configuration.listeners {
        for path in [listener.tlsCertificatePath, listener.tlsKeyPath].compactMap({ $0 }) {
            if let reason = unreadableFileReason(path) {
                fail("mock-apns: listener \(listener.name): cannot read TLS file \(path): \(reason)", status: 2)
            }
        }
    }
    // Block the stop signals before any thread exists, so every thread inherits the mask and the
    // signal waits for sigwait below instead of landing on a worker thread. SIGHUP (a closed
    // terminal, or a supervisor's "reload") and SIGUSR1 stop as gracefully as SIGTERM, rather
    // than kill the process with its long polls and streams unanswered: there is nothing to reload.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    for stopSignal in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] { sigaddset(&stopSignals, stopSignal) }
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

    // Every connection and every isolated gateway's port is a descriptor: take what the hard limit allows.
    let openFiles = OpenFileLimit.raiseToHard()
    FileHandle.standardError.write(
        Data("mock-apns: open-file limit \(openFiles.after) (soft limit was \(openFiles.before))\n".utf8))
    let server = MockAPNsServer(configuration: configuration)
    do {
        try server.start()
    } catch let error as TLSError {
        fail("mock-apns: bad TLS configuration: \(error)", status: 2)  // a configuration problem, like a bad flag
    } catch let error as ConfigurationError {
        fail("mock-apns: cannot start: \(error)", status: 2)
    } catch let error as AuthMaterialError {
        fail("mock-apns: bad provider-token keys: \(error)", status: 2)
    } catch let error as JournalError {
        fail("mock-apns: cannot start: \(error)", status: 2)  // a file to fix or move away, like a bad flag
    } catch {
        fail("mock-apns: cannot start: \(error)", status: 1)
    }
    // The ready file first: once the start-up lines are out, it is there too.
    if let path = configuration.readyFilePath {
        do {
            try ReadyFile(server: server).write(to: path)
        } catch {
            server.stop()
            fail("mock-apns: \(error)", status: 1)
        }
    }
    for listener in server.listeners {
        print(
            "MockAPNs \(MockAPNsVersion.string): APNs listener \(listener.name) (\(listener.environment.rawValue)) on \(listener.url)"
        )
    }
    for (listener, configured) in zip(server.binaryListeners, configuration.binaryListeners) {
        print(
            "MockAPNs \(MockAPNsVersion.string): \(configured.kind.rawValue) listener \(listener.name) (\(listener.environment.rawValue)) on \(listener.host):\(listener.port)"
        )
    }
    if let url = server.controlURL {
        print("MockAPNs \(MockAPNsVersion.string): control API on \(url)")
    }
    fflush(nil)

    var received: Int32 = 0
    sigwait(&stopSignals, &received)
    print("MockAPNs: stopping on signal \(received) (GOAWAY Shutdown to every connection)")
    fflush(nil)
    server.stop()
    // A stopped server's file would point at ports nobody listens on.
    if let path = configuration.readyFilePath { unlink(path) }
    exit(0)
}
