import APNsCore
import Dispatch
import Foundation
import MockAPNs

/// `mock-apns`: parse the command line, start the gateway, print where it listens, and stop
/// gracefully on SIGINT/SIGTERM (exit 0). Usage errors exit 2; start-up failures exit 1.

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let command: CommandLineCommand
do {
    command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
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
        for path in [listener.tlsCertificatePath, listener.tlsKeyPath].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            fail("mock-apns: listener \(listener.name): cannot read TLS file \(path)", status: 2)
        }
    }
    let server = MockAPNsServer(configuration: configuration)
    do {
        try server.start()
    } catch {
        fail("mock-apns: cannot start: \(error)", status: 1)
    }
    for listener in server.listeners {
        print("MockAPNs \(MockAPNsVersion.string): APNs listener \(listener.name) (\(listener.environment.rawValue)) on \(listener.url)")
    }
    if let url = server.controlURL {
        print("MockAPNs \(MockAPNsVersion.string): control API on \(url)")
    }
    fflush(nil)

    let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler {
            print("MockAPNs: stopping (GOAWAY Shutdown to every connection)")
            fflush(nil)
            server.stop()
            exit(0)
        }
        source.resume()
        return source
    }
    withExtendedLifetime(signals) { dispatchMain() }
}
