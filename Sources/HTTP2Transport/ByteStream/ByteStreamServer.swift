import CLibevent
import Glibc
import Synchronization

/// A TCP (TLS or cleartext) server of plain byte streams on one event loop of its own: the
/// legacy binary gateway and the feedback service (docs/legacy-binary.md), whose traffic is a
/// few frames per connection, so one thread serves every listener and connection.
public final class ByteStreamServer: @unchecked Sendable {
    private let specs: [ByteStreamListenerSpec]
    private let handlers: [ByteStreamHandler]
    private let loop = EventLoop()
    private var listeners: [OpaquePointer] = []
    /// Live connections by id; touched only on the loop's thread.
    private var connections: [UInt64: ByteStreamConnection] = [:]
    private let nextConnectionID: @Sendable () -> UInt64
    private let openCount = Atomic<Int>(0)
    /// Open connections per listener; touched only on the loop's thread.
    private var openByListener: [Int]
    /// Connections closed at once past a listener's `maxConnections`, per listener.
    private let refused: Mutex<[Int]>
    private let onRefused: (@Sendable (_ listenerIndex: Int, _ peer: String) -> Void)?
    /// The addresses bound, in listener order (ports resolved when 0 was asked).
    public private(set) var boundAddresses: [SocketAddress] = []

    /// - Parameters:
    ///   - listeners: the addresses, one handler each (`handlers[i]` serves `listeners[i]`).
    ///   - nextConnectionID: a process-unique id for each accepted connection (shared with the
    ///     HTTP/2 server so that ids never collide in records and events).
    ///   - onRefused: told (on the loop's thread) of each connection closed at once past its
    ///     listener's `maxConnections`, with the listener's index and the peer's address.
    public init(
        listeners: [ByteStreamListenerSpec], handlers: [ByteStreamHandler],
        nextConnectionID: @escaping @Sendable () -> UInt64,
        onRefused: (@Sendable (_ listenerIndex: Int, _ peer: String) -> Void)? = nil
    ) {
        precondition(listeners.count == handlers.count, "one handler per listener")
        openByListener = Array(repeating: 0, count: listeners.count)
        refused = Mutex(Array(repeating: 0, count: listeners.count))
        self.onRefused = onRefused
        specs = listeners
        self.handlers = handlers
        self.nextConnectionID = nextConnectionID
    }

    /// Binds every listener and starts the loop's thread.
    /// - Throws: `TransportError` naming the address that could not be bound; nothing is left
    ///   bound then.
    public func start() throws {
        do {
            for (index, spec) in specs.enumerated() {
                let context = Unmanaged.passRetained(ByteStreamListenerContext(server: self, index: index)).toOpaque()
                let (listener, bound) = try HTTP2Server.listener(
                    host: spec.host, port: spec.port, on: loop.base, context: context
                ) { _, fd, address, length, arg in
                    let context = Unmanaged<ByteStreamListenerContext>.fromOpaque(arg!).takeUnretainedValue()
                    context.server.accepted(fd: fd, address: address, length: length, index: context.index)
                }
                boundAddresses.append(bound)
                listeners.append(listener)
            }
        } catch {
            for listener in listeners { evconnlistener_free(listener) }
            listeners.removeAll()
            throw error
        }
        loop.start()
    }

    private func accepted(fd: Int32, address: UnsafeMutablePointer<sockaddr>?, length: Int32, index: Int) {
        var storage = sockaddr_storage()
        if let address {
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.baseAddress!.copyMemory(from: address, byteCount: min(Int(length), raw.count))
            }
        }
        let peer = SocketAddress(storage: storage, length: socklen_t(length)).description
        let spec = specs[index]
        guard openByListener[index] < spec.maxConnections else {
            // Past the cap: reset (RST, as an HTTP/2 listener refuses) before any TLS byte; the
            // handler never sees it.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            Glibc.close(fd)
            refused.withLock { $0[index] += 1 }
            onRefused?(index, peer)
            return
        }
        let info = AcceptedConnection(
            id: nextConnectionID(), listenerIndex: index, peer: peer, alpn: nil, tls: spec.tls != nil,
            listenerID: index)
        openCount.add(1, ordering: .relaxed)
        openByListener[index] += 1
        let connection = ByteStreamConnection(
            fd: fd, info: info, loop: loop, tls: spec.tls, handler: handlers[index],
            idleTimeout: spec.idleTimeoutSeconds
        ) { [unowned self] connection in
            connections.removeValue(forKey: connection.info.id)
            openCount.subtract(1, ordering: .relaxed)
            openByListener[connection.info.listenerIndex] -= 1
        }
        connections[info.id] = connection
        connection.start()
    }

    /// Connections open now (handshaking included).
    public var openConnections: Int { openCount.load(ordering: .relaxed) }

    /// Connections listener `index` closed at once past its `maxConnections`, since the start.
    public func refusedConnections(listener index: Int) -> Int { refused.withLock { $0[index] } }

    /// Runs `body` on the loop's thread with every open connection (handshaking included) and
    /// returns what it gathered; waits at most `timeout` seconds (then returns nothing). Call from
    /// another thread than the loop's (the control API's).
    public func collect<T: Sendable>(timeout: Double = 2, _ body: @escaping @Sendable ([ByteStreamConnection]) -> [T])
        -> [T]
    {
        let gathered = Mutex<[T]?>(nil)
        loop.execute { [self] in
            let items = body(Array(connections.values))
            gathered.withLock { $0 = items }
        }
        var waited = 0.0
        while gathered.withLock({ $0 == nil }) && waited < timeout {
            usleep(200)
            waited += 0.0002
        }
        return gathered.withLock { $0 } ?? []
    }

    /// Runs `task` on the loop's thread, soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        loop.execute(task)
    }

    /// Stops accepting, runs `farewell` on every open connection (on the loop's thread: it may
    /// write a last packet and close), waits up to `timeout` seconds for them to close, closes
    /// the rest and ends the loop. Blocks until done; call from another thread than the loop's.
    public func shutdown(timeout: Double, farewell: @escaping @Sendable (ByteStreamConnection) -> Void) {
        loop.execute { [self] in
            for listener in listeners { evconnlistener_free(listener) }
            listeners.removeAll()
            for connection in Array(connections.values) { farewell(connection) }
        }
        var waited = 0.0
        while openConnections > 0 && waited < timeout {
            usleep(2000)
            waited += 0.002
        }
        loop.execute { [self] in
            for connection in Array(connections.values) { connection.close() }
        }
        loop.stop()
        loop.waitUntilFinished()
    }
}

/// What a listener's accept callback needs; retained for the server's life.
private final class ByteStreamListenerContext {
    unowned let server: ByteStreamServer
    let index: Int
    init(server: ByteStreamServer, index: Int) {
        self.server = server
        self.index = index
    }
}
