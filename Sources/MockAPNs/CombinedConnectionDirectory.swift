import ControlAPI
import Faults

/// The default gateway's connections for the control API: the HTTP/2 ones
/// (`TransportConnectionDirectory`) and the legacy binary and feedback ones
/// (`LegacyConnectionDirectory`, ids from 2^32), listed together by id; a command goes to the
/// one that owns the id; a rolling restart acts on HTTP/2 connections only (it is GOAWAYs).
final class CombinedConnectionDirectory: ConnectionDirectory, @unchecked Sendable {
    let http2: TransportConnectionDirectory
    let legacy: LegacyConnectionDirectory

    init(http2: TransportConnectionDirectory, legacy: LegacyConnectionDirectory) {
        self.http2 = http2
        self.legacy = legacy
    }

    func connections() -> [ConnectionListEntry] {
        (http2.connections() + legacy.connections()).sorted { $0.id < $1.id }
    }

    var otherListenerNames: [String] { legacy.listenerNames }

    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        LegacyConnectionDirectory.owns(id)
            ? legacy.perform(command, onConnection: id) : http2.perform(command, onConnection: id)
    }

    func startRollingRestart(_ restart: RollingRestart) -> [UInt64] { http2.startRollingRestart(restart) }

    func rollingRestartInProgress() -> RollingRestartRun.Status? { http2.rollingRestartInProgress() }

    func cancelRollingRestart() -> Bool { http2.cancelRollingRestart() }
}
