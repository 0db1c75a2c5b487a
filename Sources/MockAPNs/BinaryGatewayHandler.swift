import APNsCore
import Configuration
import HTTP2Transport
import LegacyBinary
import Synchronization

/// The legacy binary gateway behind a `binary` listener (docs/legacy-binary.md §3): each
/// connection's bytes through its `BinaryFrameDecoder`; an accepted notification answered with
/// nothing, a bad one with its error packet (none for command 0) and a close, what follows it
/// discarded; at shutdown, status 10 naming the last notification accepted. Called on the byte
/// stream server's loop thread only.
final class BinaryGatewayHandler: ByteStreamHandler, @unchecked Sendable {
    /// One connection's reader and what it accepted.
    private final class Session {
        var decoder: BinaryFrameDecoder
        /// The identifier of the last notification accepted (0 before any).
        var lastAccepted: UInt32 = 0
        init(limits: BinaryLimits) { decoder = BinaryFrameDecoder(limits: limits) }
    }

    let listener: BinaryListenerConfiguration
    /// Whether the listener asks for client certificates (the first HTTP/2 listener's client CAs).
    let asksForCertificates: Bool
    private let logger: Logger
    /// Touched on the loop thread only.
    private var sessions: [UInt64: Session] = [:]

    private let registry: DeviceRegistry
    private let registryMode: RegistryMode

    init(
        listener: BinaryListenerConfiguration, asksForCertificates: Bool, registry: DeviceRegistry,
        registryMode: RegistryMode, logger: Logger
    ) {
        self.listener = listener
        self.asksForCertificates = asksForCertificates
        self.registry = registry
        self.registryMode = registryMode
        self.logger = logger
    }

    /// The registry's verdict on a binary notification's token (docs/legacy-binary.md §5): status
    /// 8, invalid token, for a device of the other environment, expired or unregistered, or unknown
    /// under a closed registry, unless `answer` is `.accept`; nil to accept.
    static func registryStatus(
        _ registration: DeviceRegistration?, environment: APNsEnvironment, mode: RegistryMode,
        answer: BinaryListenerConfiguration.UnregisteredAnswer
    ) -> BinaryStatus? {
        guard answer == .invalidToken else { return nil }
        guard let registration else { return mode == .closed ? .invalidToken : nil }
        if registration.environment != environment || registration.expired || registration.unregisteredAt != nil {
            return .invalidToken
        }
        return nil
    }

    func connectionOpened(_ connection: ByteStreamConnection) {
        if asksForCertificates && listener.certificateRequired && connection.info.clientCertificate?.verified != true {
            // Apple's gateway refused the TLS session without a valid certificate: no packet.
            logger.log(
                .info, "binary \(listener.name): connection \(connection.info.id) without a verified certificate closed"
            )
            connection.close()
            return
        }
        sessions[connection.info.id] = Session(limits: listener.limits)
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection) {
        guard let session = sessions[connection.info.id], session.decoder.isServing else { return }
        let result = session.decoder.feed(bytes)
        for notification in result.notifications {
            let registration = registry.lookup(notification.tokenHex)
            if let status = Self.registryStatus(
                registration, environment: listener.environment, mode: registryMode, answer: listener.unregistered)
            {
                // What follows on the connection is discarded.
                session.decoder.stop()
                end(connection, with: BinaryRejection(notification, status: status))
                return
            }
            if let identifier = notification.identifier { session.lastAccepted = identifier }
        }
        if let rejection = result.rejection {
            end(connection, with: rejection)
        }
    }

    /// Writes the rejection's error packet (none for command 0) and closes.
    private func end(_ connection: ByteStreamConnection, with rejection: BinaryRejection) {
        if let packet = rejection.errorPacket {
            connection.write(packet.bytes)
            connection.closeAfterWriting()
        } else {
            connection.close()
        }
    }

    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool) {
        sessions.removeValue(forKey: connection.info.id)
    }

    /// At shutdown: error packet status 10 with the last accepted identifier, then close.
    func shutDown(_ connection: ByteStreamConnection) {
        guard let session = sessions[connection.info.id], session.decoder.isServing else {
            connection.close()
            return
        }
        session.decoder.stop()
        connection.write(BinaryErrorPacket(status: .shutdown, identifier: session.lastAccepted).bytes)
        connection.closeAfterWriting()
    }
}
