import CLibevent
import Glibc

/// A resolved IPv4 or IPv6 socket address.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    /// Resolves `host` (a numeric address, `localhost`, or a name) with `port`.
    /// - Throws: `TransportError` when the host cannot be resolved.
    public init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let status = getaddrinfo(bare, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw TransportError("cannot resolve listen address \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.baseAddress!.copyMemory(from: first.pointee.ai_addr, byteCount: Int(first.pointee.ai_addrlen))
        }
        length = first.pointee.ai_addrlen
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// The port, host byte order.
    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if Int32(storage.ss_family) == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The numeric host, IPv6 without brackets.
    public var hostText: String {
        let text = description
        let host = text[..<text.lastIndex(of: ":")!]
        return host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : String(host)
    }

    /// `host:port`, IPv6 hosts in brackets.
    public var description: String {
        var host = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if Int32(storage.ss_family) == AF_INET6 {
                var address = raw.load(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &address, &host, socklen_t(host.count))
            } else {
                var address = raw.load(as: sockaddr_in.self).sin_addr
                inet_ntop(AF_INET, &address, &host, socklen_t(host.count))
            }
        }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int32(storage.ss_family) == AF_INET6 ? "[\(text)]:\(port)" : "\(text):\(port)"
    }
}

/// A socket-level failure: binding, listening.
public struct TransportError: Error, CustomStringConvertible {
    /// What failed and why.
    public var description: String
    init(_ description: String) { self.description = description }

    /// `start()` was called on a server that already started.
    public static let alreadyStarted = TransportError("the server was already started")
}
