import APNsAuth
import APNsCore
import Configuration
import ControlAPI
import Foundation
import HTTP2Transport
import LegacyBinary
import Recording
import Synchronization

/// The feedback service behind a `feedback` listener (docs/legacy-binary.md §4): on connect, one
/// tuple per registry device of the listener's environment that became unregistered
/// (`unregisteredAt`, once that moment has come: a moment still to come is not reported yet, as
/// the provider API still answers the token 200 until then) and was not reported yet, then close.
/// Each (token, time) is reported once: it is spent once written to a connection (handed to its
/// socket), not when read for it, so a connection that closes before its tuples are written
/// leaves them for the next one.
final class FeedbackService: ByteStreamHandler, @unchecked Sendable {
    let listener: BinaryListenerConfiguration
    let asksForCertificates: Bool
    private let registry: DeviceRegistry
    /// The listener's connection events; nil in tests that need none.
    private let events: LegacyEventLog?
    /// What each open connection is being sent, and whether it was written; loop thread only.
    private var sending: [UInt64: (due: [(token: String, tuple: FeedbackTuple)], written: Bool)] = [:]
    /// Connections closed before their tuples, for lacking a verified certificate; loop thread only.
    private var refusedAtOpen: Set<UInt64> = []
    /// Connections closed by a control-API command; loop thread only.
    private var commanded: Set<UInt64> = []
    /// `token@unregisteredAt` of what was sent.
    private let reported = Mutex<Set<String>>([])
    /// Now, in milliseconds since the Unix epoch (the wall clock, as the registry rule reads it).
    private let nowMilliseconds: @Sendable () -> Int64

    init(
        listener: BinaryListenerConfiguration, asksForCertificates: Bool, registry: DeviceRegistry,
        events: ConnectionEventStore? = nil,
        nowMilliseconds: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.events = events.map { LegacyEventLog(store: $0, listener: listener) }
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
        let due = pending()
        spend(due)
        return due
    }

    /// Marks `entries` reported: they were written to a connection.
    func spend(_ entries: [(token: String, tuple: FeedbackTuple)]) {
        reported.withLock { sent in
            for entry in entries { sent.insert(Self.key(entry.token, entry.tuple.timestamp)) }
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
        let certificate = connection.info.clientCertificate
        let subject = certificate.flatMap { $0.verified ? try? CertificateIdentity(der: $0.der).subject : nil }
        events?.record(
            .legacyOpened(
                transport: listener.kind.rawValue, tls: connection.info.tls, certificateSubject: subject, topic: nil),
            origin: .lifecycle, on: connection)
        if asksForCertificates && listener.certificateRequired && certificate?.verified != true {
            refusedAtOpen.insert(connection.info.id)
            connection.close()
            return
        }
        // Spent once written, not now (docs/legacy-binary.md §8).
        let id = connection.info.id
        let due = pending()
        sending[id] = (due, false)
        connection.write(due.flatMap(\.tuple.bytes))
        connection.finish(drainFor: 1) { [weak self, weak connection] in
            guard let self else { return }
            self.spend(due)
            self.sending[id]?.written = true
            if let connection {
                self.events?.record(
                    .feedbackSent(tuples: due.count, tokens: due.map(\.token)), origin: .lifecycle, on: connection)
            }
        }
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection) {}

    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool) {
        let id = connection.info.id
        let sent = sending.removeValue(forKey: id)
        let reason: (String, ConnectionEventOrigin)
        if refusedAtOpen.remove(id) != nil {
            reason = ("certificate-required", .certificate)
        } else if commanded.remove(id) != nil {
            reason = ("command", .command)
        } else if sent?.written == true {
            reason = ("feedback-sent", .lifecycle)
        } else if connection.closedIdle {
            reason = ("idle-timeout", .idleTimeout)
        } else {
            reason = (byPeer ? "peer-closed" : "server-closed", .lifecycle)
        }
        events?.record(
            .legacyClosed(
                transport: listener.kind.rawValue, reason: reason.0,
                notifications: UInt64(sent?.written == true ? sent?.due.count ?? 0 : 0),
                ageMilliseconds: LegacyEventLog.age(of: connection)),
            origin: reason.1, on: connection)
    }
}

extension FeedbackService: LegacyConnectionHandler {
    func entry(of connection: ByteStreamConnection) -> ConnectionListEntry {
        let sent = sending[connection.info.id]
        let subject = connection.info.clientCertificate.flatMap {
            $0.verified ? try? CertificateIdentity(der: $0.der).subject : nil
        }
        return ConnectionListEntry(
            id: connection.info.id, peer: connection.info.peer, listener: listener.name,
            environment: listener.environment, alpn: connection.info.alpn, tls: connection.info.tls,
            auth: subject.map { "certificate \($0)" } ?? "none", openStreams: 0, maxConcurrentStreams: 0, requests: 0,
            ageMilliseconds: LegacyEventLog.age(of: connection), state: .closing, transport: listener.kind.rawValue,
            certificateSubject: subject, topic: nil,
            legacy: LegacyConnectionCounts(feedbackTuples: UInt64(sent?.written == true ? sent?.due.count ?? 0 : 0)))
    }

    func close(_ connection: ByteStreamConnection, reset: Bool) {
        commanded.insert(connection.info.id)
        connection.close(reset: reset)
    }
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
