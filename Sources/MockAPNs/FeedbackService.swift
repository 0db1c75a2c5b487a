import APNsCore
import Configuration
import ControlAPI
import Foundation
import HTTP2Transport
import LegacyBinary
import Synchronization

/// The feedback service behind a `feedback` listener (docs/legacy-binary.md §4): on connect, one
/// tuple per registry device of the listener's environment that became unregistered
/// (`unregisteredAt`, once that moment has come: a moment still to come is not reported yet, as
/// the provider API still answers the token 200 until then) and was not reported yet, then close.
/// Each (token, time) is reported once.
final class FeedbackService: ByteStreamHandler, @unchecked Sendable {
    let listener: BinaryListenerConfiguration
    let asksForCertificates: Bool
    private let registry: DeviceRegistry
    /// `token@unregisteredAt` of what was sent.
    private let reported = Mutex<Set<String>>([])
    /// Now, in milliseconds since the Unix epoch (the wall clock, as the registry rule reads it).
    private let nowMilliseconds: @Sendable () -> Int64

    init(
        listener: BinaryListenerConfiguration, asksForCertificates: Bool, registry: DeviceRegistry,
        nowMilliseconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.listener = listener
        self.asksForCertificates = asksForCertificates
        self.registry = registry
        self.nowMilliseconds = nowMilliseconds
    }

    /// The tuples a read would return now (oldest first, then by token), without taking them.
    func pending() -> [(token: String, tuple: FeedbackTuple)] {
        let sent = reported.withLock { $0 }
        return candidates().filter { !sent.contains(Self.key($0.token, $0.tuple.timestamp)) }
    }

    /// The tuples of a read: `pending()`, marked reported.
    func take() -> [(token: String, tuple: FeedbackTuple)] {
        reported.withLock { sent in
            let due = candidates().filter { !sent.contains(Self.key($0.token, $0.tuple.timestamp)) }
            for entry in due { sent.insert(Self.key(entry.token, entry.tuple.timestamp)) }
            return due
        }
    }

    private static func key(_ token: String, _ timestamp: UInt32) -> String { "\(token)@\(timestamp)" }

    private func candidates() -> [(token: String, tuple: FeedbackTuple)] {
        let now = nowMilliseconds()
        return registry.all().compactMap { device in
            guard device.environment == listener.environment, let milliseconds = device.unregisteredAt,
                milliseconds <= now, let bytes = BinaryHex.decode(device.token)
            else { return nil }
            let seconds = UInt32(clamping: max(0, milliseconds / 1000))
            return (device.token, FeedbackTuple(timestamp: seconds, token: bytes))
        }.sorted { ($0.tuple.timestamp, $0.token) < ($1.tuple.timestamp, $1.token) }
    }

    func connectionOpened(_ connection: ByteStreamConnection) {
        if asksForCertificates && listener.certificateRequired && connection.info.clientCertificate?.verified != true {
            connection.close()
            return
        }
        let bytes = take().flatMap(\.tuple.bytes)
        connection.write(bytes)
        connection.finish(drainFor: 1)
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection) {}

    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool) {}
}

extension FeedbackService: FeedbackSource {
    /// `pending()` as the control API lists it.
    func pendingFeedback() -> [FeedbackEntry] {
        pending().map {
            FeedbackEntry(
                token: $0.token, timestamp: Int64($0.tuple.timestamp), environment: listener.environment.rawValue)
        }
    }
}
