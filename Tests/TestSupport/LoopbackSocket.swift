import Foundation

/// A blocking TCP connection to 127.0.0.1, for tests that speak raw bytes.
public enum LoopbackSocket {
    /// Connects to 127.0.0.1:`port`; returns the descriptor, or -1 when the connection failed.
    /// `receiveBuffer` (bytes), when given, is set as SO_RCVBUF before connecting, so a peer that
    /// reads nothing holds little.
    public static func connect(port: Int, receiveBuffer: Int32? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 {
            close(fd)
            return -1
        }
        return fd
    }
}
