import Foundation
import Glibc

/// Paths of the repository's test certificates and helpers shared by the tests.
enum TestFixtures {
    /// The repository's `tls/` directory, found from this file (symlinks resolved, so a package
    /// that links the test folder still finds it).
    static let tlsDirectory: String = {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tls").path
    }()

    static var caPath: String { tlsDirectory + "/ca.pem" }
    static var serverCertificatePath: String { tlsDirectory + "/server.pem" }
    static var serverKeyPath: String { tlsDirectory + "/server-key.pem" }

    /// A TCP port nothing listens on right now: bind port 0, read the port, release it.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_ANY
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                _ = bind(fd, raw, length)
                _ = getsockname(fd, raw, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// True when a TCP connection to 127.0.0.1:`port` succeeds.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A fresh empty directory under the temporary directory.
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "http2client-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
