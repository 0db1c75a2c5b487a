import Glibc
import SystemSupport

/// Opens a nonblocking TCP connection, trying each resolved address in turn.
enum TCPConnector {
    /// Connects to host:port before `deadline` (a `MonotonicClock` value) and returns the
    /// nonblocking socket with TCP_NODELAY set.
    static func connect(host: String, port: Int, deadline: UInt64, timeout: Double) throws(HTTP2ClientError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, list != nil else {
            throw .cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError: HTTP2ClientError = .connectFailed(host: host, port: port, reason: "no address")
        var entry = list
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(
                address.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                    | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = .connectFailed(host: host, port: port, reason: String(cString: strerror(errno)))
                continue
            }
            var code: Int32 = 0
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                code = errno == EINPROGRESS ? waitForConnect(fd, deadline: deadline) : errno
            }
            if code == 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            close(fd)
            switch code {
            case ETIMEDOUT:
                lastError = .timedOut(what: "connecting to \(HTTP2Endpoint.authority(host, port))", seconds: timeout)
            case ECONNREFUSED: lastError = .connectionRefused(host: host, port: port)
            default: lastError = .connectFailed(host: host, port: port, reason: String(cString: strerror(code)))
            }
            if case .timedOut = lastError { break }
        }
        throw lastError
    }

    /// Waits for a nonblocking connect to finish; returns 0 or the errno it failed with
    /// (ETIMEDOUT when the deadline passed).
    private static func waitForConnect(_ fd: Int32, deadline: UInt64) -> Int32 {
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, MonotonicClock.pollTimeout(until: deadline))
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return errno }
            if ready == 0 { return ETIMEDOUT }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            return code
        }
    }
}
