import APNsAuth
import APNsCore
import Configuration
import ControlAPI
import Devices
import Faults
import Foundation
import HTTP2Transport
import HTTPFields
import LegacyBinary
import Recording

/// The legacy binary gateway behind a `binary` listener (docs/legacy-binary.md §3, §5, §8): each
/// connection's bytes through its `BinaryFrameDecoder`; each well-formed notification through the
/// HTTP/2 path's checks (`BinaryNotificationJudge`) and recorded; an accepted one answered with
/// nothing (and handed to its virtual device, if the token is one), a bad one with its error
/// packet (none for command 0) and a close, what follows it recorded as discarded; at shutdown,
/// status 10 naming the last notification accepted. Called on the byte-stream server's loop
/// thread only.
final class BinaryGatewayHandler: ByteStreamHandler, @unchecked Sendable {
    /// One connection's reader, its certificate's topic and what it accepted.
    private final class Session {
        var decoder: BinaryFrameDecoder
        /// The topic from the client certificate, else the listener's `topic`.
        let topic: String?
        /// Who connected, as records show it (nil without a certificate).
        let identity: CredentialIdentity?
        /// The identifier of the last notification accepted (0 before any).
        var lastAccepted: UInt32 = 0
        /// True once the connection's end was decided (error packet, sever, shutdown).
        var ended = false
        /// What it carried so far (`GET /v1/connections`).
        var counts = LegacyConnectionCounts()
        /// Why the server ended it, and what caused that, for its `closed` event; nil until then.
        var endReason: (reason: String, origin: ConnectionEventOrigin)?
        init(limits: BinaryLimits, topic: String?, identity: CredentialIdentity?) {
            decoder = BinaryFrameDecoder(limits: limits)
            self.topic = topic
            self.identity = identity
        }
    }

    /// Record header names carrying what the binary frame said (docs/legacy-binary.md §8).
    enum RecordHeader {
        /// The command, `0`, `1` or `2`.
        static let command = DeliveryRecord.binaryCommandHeader
        /// The notification identifier, when the frame had one.
        static let identifier = "x-mockapns-binary-identifier"
        /// The status of the error packet sent for it (or, command 0, of the close); absent when
        /// accepted or discarded.
        static let status = "x-mockapns-binary-status"
    }

    /// How long a connection is still read after its error packet (or sever) and FIN, in seconds,
    /// so that what the sender still sends is recorded as discarded and the sender is not reset
    /// before it read the packet.
    static let drainSeconds = 2.0

    let listener: BinaryListenerConfiguration
    /// Whether the listener asks for client certificates (the first HTTP/2 listener's client CAs).
    let asksForCertificates: Bool
    private let judge: BinaryNotificationJudge
    private let store: DeliveryStore
    private let devices: DeviceBook
    private let logger: Logger
    private let ids = UUIDGenerator()
    /// The listener's connection events (opened, closed, error packets).
    private let events: LegacyEventLog
    /// The gateway's fault rules; those with `match.protocol` `binary` apply here.
    private let faults: FaultEngine?
    /// Touched on the loop thread only.
    private var sessions: [UInt64: Session] = [:]
    /// Why connections closed before a session began (no certificate, other environment).
    private var refusedAtOpen: [UInt64: String] = [:]

    init(
        listener: BinaryListenerConfiguration, asksForCertificates: Bool, judge: BinaryNotificationJudge,
        store: DeliveryStore, devices: DeviceBook, events: ConnectionEventStore, faults: FaultEngine? = nil,
        logger: Logger
    ) {
        self.faults = faults
        self.events = LegacyEventLog(store: events, listener: listener)
        self.listener = listener
        self.asksForCertificates = asksForCertificates
        self.judge = judge
        self.store = store
        self.devices = devices
        self.logger = logger
    }

    func connectionOpened(_ connection: ByteStreamConnection) {
        let certificate = connection.info.clientCertificate
        var topic = listener.topic
        var identity: CredentialIdentity?
        var parsed: CertificateIdentity?
        if let certificate, certificate.verified, let read = try? CertificateIdentity(der: certificate.der) {
            parsed = read
            topic = Self.topic(of: read) ?? topic
            identity = CredentialIdentity(
                kind: "certificate", subject: read.subject, topics: read.topics.map(\.topic), verdict: "accepted")
        }
        events.record(
            .legacyOpened(
                transport: listener.kind.rawValue, tls: connection.info.tls, certificateSubject: parsed?.subject,
                topic: topic),
            origin: .lifecycle, on: connection)
        if asksForCertificates && listener.certificateRequired && certificate?.verified != true {
            // Apple's gateway refused the TLS session without a valid certificate: no packet.
            logger.log(
                .info, "binary \(listener.name): connection \(connection.info.id) without a verified certificate closed"
            )
            refusedAtOpen[connection.info.id] = "certificate-required"
            connection.close()
            return
        }
        if let parsed, listener.certificateEnvironment == .close,
            !parsed.environments.contains(listener.environment)
        {
            // docs/legacy-binary.md §8: a certificate of the other environment, closed with no packet.
            logger.log(
                .info,
                "binary \(listener.name): connection \(connection.info.id) closed: its certificate is not for "
                    + listener.environment.rawValue)
            refusedAtOpen[connection.info.id] = "certificate-environment"
            connection.close()
            return
        }
        sessions[connection.info.id] = Session(limits: listener.limits, topic: topic, identity: identity)
    }

    /// The topic of a binary connection's notifications from its certificate
    /// (docs/legacy-binary.md §8): the subject's UID, the base bundle ID (the binary protocol has no
    /// topic field, so a multi-topic "universal" certificate pushes to its app's own topic, not to
    /// one of its `.voip` / `.complication` ones); else its only listed topic; else nil.
    static func topic(of certificate: CertificateIdentity) -> String? {
        certificate.uid ?? certificate.defaultTopic
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection) {
        guard let session = sessions[connection.info.id] else { return }
        let result = session.decoder.feed(bytes)
        let now = Date().timeIntervalSince1970
        var refusal: BinaryRejection?
        for notification in result.notifications {
            session.counts.notifications += 1
            if refusal != nil {
                session.counts.discarded += 1
                record(notification, session: session, connection: connection, now: now, outcome: .discarded)
                continue
            }
            let judgement = judge.judge(notification, topic: session.topic, nowMilliseconds: Int64(now * 1000))
            if let status = judgement.status {
                session.counts.refused += 1
                record(notification, session: session, connection: connection, now: now, outcome: .refused(status))
                session.decoder.stop()
                refusal = BinaryRejection(notification, status: status)
                continue
            }
            if let faults, faults.isArmed,
                let decision = faults.evaluate(
                    faultContext(notification, judgement: judgement, connection: connection, now: now)),
                let effect = BinaryFaultEffect(decision.action)
            {
                // docs/legacy-binary.md §8: the rule's action in binary terms; what follows is discarded.
                session.counts.refused += 1
                let fault = FaultRecord(
                    ruleID: decision.ruleID, action: decision.ruleActionType,
                    description: decision.description)
                record(
                    notification, session: session, connection: connection, now: now,
                    outcome: .faulted(effect, fault), judgement: judgement)
                session.decoder.stop()
                session.ended = true
                session.endReason = ("fault", .fault(ruleID: fault.ruleID, action: fault.action))
                refusal = BinaryRejection(notification, status: effect.status ?? .unknown)
                apply(effect, to: notification, rule: fault, on: connection)
                continue
            }
            session.counts.accepted += 1
            let seq = record(
                notification, session: session, connection: connection, now: now, outcome: .accepted,
                judgement: judgement)
            if let identifier = notification.identifier { session.lastAccepted = identifier }
            if let token = judgement.verdict.deviceToken, devices.contains(token) {
                devices.receive(
                    DevicePush(id: seq, verdict: judgement.verdict, body: notification.payload), token: token)
            }
        }
        if let rejection = result.rejection {
            if let notification = rejection.notification {
                session.counts.notifications += 1
                if refusal == nil { session.counts.refused += 1 } else { session.counts.discarded += 1 }
                // Only the first refusal's packet is written: a later frame error in the same
                // read is after it, so that notification is discarded, not refused (a record
                // never names a packet the sender did not get).
                record(
                    notification, session: session, connection: connection, now: now,
                    outcome: refusal == nil ? .refused(rejection.status) : .discarded)
            } else if refusal == nil {
                logger.log(
                    .info,
                    "binary \(listener.name): connection \(connection.info.id) sent an unparsable frame "
                        + "(command \(rejection.commandByte)): status \(rejection.status.rawValue)")
            }
            refusal = refusal ?? rejection
        }
        for notification in result.discarded {
            session.counts.notifications += 1
            session.counts.discarded += 1
            record(notification, session: session, connection: connection, now: now, outcome: .discarded)
        }
        if let refusal, !session.ended {
            session.ended = true
            session.endReason = (refusal.errorPacket == nil ? "severed" : "error-packet", .lifecycle)
            end(connection, with: refusal)
        }
    }

    /// What became of a notification, as its record says.
    private enum Outcome {
        case accepted
        case refused(BinaryStatus)
        case discarded
        /// A fault rule's action answered it (`FaultRecord` names the rule).
        case faulted(BinaryFaultEffect, FaultRecord)
    }

    /// The fault rules' view of `notification`: as the HTTP/2 request it stands for, protocol `binary`.
    private func faultContext(
        _ notification: BinaryNotification, judgement: BinaryNotificationJudge.Judgement,
        connection: ByteStreamConnection, now: Double
    ) -> FaultContext {
        var context = FaultContext(
            token: judgement.verdict.deviceToken, topic: judgement.verdict.topic, pushType: judgement.verdict.pushType,
            priority: judgement.verdict.priority, listener: listener.name, environment: listener.environment,
            connectionID: connection.info.id, headers: judgement.request.headers, payload: notification.payload,
            nowMilliseconds: Int64(now * 1000))
        context.transport = .binary
        return context
    }

    /// Carries out a fault's `effect` on `connection`, after its delay: the error packet (none for
    /// command 0) then FIN, or a FIN, or a TCP RST.
    private func apply(
        _ effect: BinaryFaultEffect, to notification: BinaryNotification, rule: FaultRecord,
        on connection: ByteStreamConnection
    ) {
        let origin = ConnectionEventOrigin.fault(ruleID: rule.ruleID, action: rule.action)
        let act = { [weak self] in
            guard let self else { return }
            switch effect.end {
            case .status(let status):
                let rejection = BinaryRejection(notification, status: status)
                if let packet = rejection.errorPacket {
                    connection.write(packet.bytes)
                    self.recordPacket(packet, origin: origin, on: connection)
                }
                connection.finish(drainFor: Self.drainSeconds)
            case .close:
                connection.finish(drainFor: Self.drainSeconds)
            case .reset:
                connection.close(reset: true)
            }
        }
        if effect.delayMilliseconds > 0 {
            connection.schedule(after: Double(effect.delayMilliseconds) / 1000, act)
        } else {
            act()
        }
    }

    /// Stores the record of `notification`; returns its seq.
    @discardableResult
    private func record(
        _ notification: BinaryNotification, session: Session, connection: ByteStreamConnection, now: Double,
        outcome: Outcome, judgement: BinaryNotificationJudge.Judgement? = nil
    ) -> UInt64 {
        let judgement =
            judgement ?? judge.judge(notification, topic: session.topic, nowMilliseconds: Int64(now * 1000))
        var headers = judgement.request.headers
        headers.append(HeaderField(name: RecordHeader.command, value: String(notification.command.rawValue)))
        if let identifier = notification.identifier {
            headers.append(HeaderField(name: RecordHeader.identifier, value: String(identifier)))
        }
        var status = 200
        var reason: Reason?
        var unanswered: UnansweredCause?
        var fault: FaultRecord?
        switch outcome {
        case .accepted:
            break
        case .refused(let binary):
            headers.append(HeaderField(name: RecordHeader.status, value: String(binary.rawValue)))
            status = judgement.verdict.status == 200 ? 400 : judgement.verdict.status
            reason = judgement.verdict.reason
        case .discarded:
            status = 0
            unanswered = .connectionClosed
        case .faulted(let effect, let rule):
            fault = rule
            if let binary = effect.status, notification.command != .simple {
                headers.append(HeaderField(name: RecordHeader.status, value: String(binary.rawValue)))
            }
            if let response = effect.response {
                status = response.status
                reason = response.reason
            } else {
                status = 0
                unanswered = .connectionClosed
            }
        }
        return store.append(
            DeliveryRecord(
                receivedAt: now, environment: listener.environment, listener: listener.name,
                connectionID: connection.info.id, streamID: 0, method: judgement.request.method,
                path: judgement.request.path, verdict: judgement.verdict, apnsID: ids.next(uppercase: true),
                uniqueID: nil, headers: headers, payload: notification.payload, status: status, reason: reason,
                identity: session.identity, fault: fault, unanswered: unanswered))
    }

    /// Writes the rejection's error packet (none for command 0: severed) and ends the connection:
    /// FIN, then what still arrives for `drainSeconds` is read and recorded as discarded.
    private func end(_ connection: ByteStreamConnection, with rejection: BinaryRejection) {
        if let packet = rejection.errorPacket {
            connection.write(packet.bytes)
            recordPacket(packet, origin: .lifecycle, on: connection)
        }
        connection.finish(drainFor: Self.drainSeconds)
    }

    /// The `errorPacket` event of `packet`.
    private func recordPacket(
        _ packet: BinaryErrorPacket, origin: ConnectionEventOrigin, on connection: ByteStreamConnection
    ) {
        events.record(
            .errorPacket(
                status: packet.status.rawValue, statusName: packet.status.description, identifier: packet.identifier),
            origin: origin, on: connection)
    }

    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool) {
        let session = sessions.removeValue(forKey: connection.info.id)
        faults?.connectionClosed(id: connection.info.id)
        let early = refusedAtOpen.removeValue(forKey: connection.info.id)
        var reason = early.map { ($0, ConnectionEventOrigin.certificate) } ?? session?.endReason
        if reason == nil {
            reason =
                connection.closedIdle
                ? ("idle-timeout", .idleTimeout) : byPeer ? ("peer-closed", .lifecycle) : ("server-closed", .lifecycle)
        }
        events.record(
            .legacyClosed(
                transport: listener.kind.rawValue, reason: reason!.0, notifications: session?.counts.notifications ?? 0,
                ageMilliseconds: LegacyEventLog.age(of: connection)),
            origin: reason!.1, on: connection)
    }

    /// At shutdown: error packet status 10 with the last accepted identifier, then close.
    func shutDown(_ connection: ByteStreamConnection) {
        guard let session = sessions[connection.info.id], !session.ended else {
            connection.close()
            return
        }
        session.ended = true
        session.endReason = ("shutdown", .shutdown)
        session.decoder.stop()
        let packet = BinaryErrorPacket(status: .shutdown, identifier: session.lastAccepted)
        connection.write(packet.bytes)
        recordPacket(packet, origin: .shutdown, on: connection)
        connection.finish(drainFor: 0.5)
    }
}

extension BinaryGatewayHandler: LegacyConnectionHandler {
    func entry(of connection: ByteStreamConnection) -> ConnectionListEntry {
        let session = sessions[connection.info.id]
        return ConnectionListEntry(
            id: connection.info.id, peer: connection.info.peer, listener: listener.name,
            environment: listener.environment, alpn: connection.info.alpn, tls: connection.info.tls,
            auth: session?.identity.map { "certificate \($0.subject ?? "")" } ?? "none", openStreams: 0,
            maxConcurrentStreams: 0, requests: session?.counts.notifications ?? 0,
            ageMilliseconds: LegacyEventLog.age(of: connection),
            state: session?.ended ?? true ? .closing : .open, transport: listener.kind.rawValue,
            certificateSubject: session?.identity?.subject, topic: session?.topic, legacy: session?.counts)
    }

    func close(_ connection: ByteStreamConnection, reset: Bool) {
        if let session = sessions[connection.info.id] {
            session.ended = true
            session.endReason = ("command", .command)
            session.decoder.stop()
        }
        connection.close(reset: reset)
    }
}
