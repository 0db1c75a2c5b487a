import CLibevent
import Dispatch
import Glibc
import Synchronization

/// One address an `HTTP2Server` listens on.
public struct HTTP2ListenerSpec: Sendable {
    /// Host to bind (numeric address or name) and port (0 picks a free one).
    public var host: String
    public var port: Int
    /// TLS context, or nil for cleartext HTTP/2 with prior knowledge.
    public var tls: TLSContext?
    /// The SETTINGS sent first on each connection.
    public var settings: HTTP2Settings

    public init(host: String, port: Int, tls: TLSContext?, settings: HTTP2Settings) {
        self.host = host
        self.port = port
        self.tls = tls
        self.settings = settings
    }
}

/// An HTTP/2 server: listening sockets on an accept loop, connections spread round-robin over
/// worker loops (one thread each), each connection confined to its worker.
public final class HTTP2Server: @unchecked Sendable {
    private let specs: [HTTP2ListenerSpec]
    private let handler: HTTP2RequestHandler
    private let acceptLoop: EventLoop
    private let workers: [HTTP2Worker]
    private var listeners: [OpaquePointer] = []
    private let nextConnectionID = Atomic<UInt64>(1)
    private let nextWorker = Atomic<Int>(0)
    private let openCount = Atomic<Int>(0)
    /// accept() failures, logged at most once a second; on the accept loop.
    private var acceptFailures = AcceptFailureLog(what: "APNs listener")
    /// The addresses actually bound, in listener order (ports resolved when 0 was asked).
    public private(set) var boundAddresses: [SocketAddress] = []

    /// - Parameters:
    ///   - acceptLoop: the loop that accepts connections (it must be running or run later).
    ///   - workerCount: worker threads; 0 means `automaticWorkerCount(cores:)` of the usable cores
    ///     (`UsableCores`).
    public init(listeners: [HTTP2ListenerSpec], workerCount: Int, acceptLoop: EventLoop, handler: HTTP2RequestHandler) {
        specs = listeners
        self.handler = handler
        self.acceptLoop = acceptLoop
        let count =
            workerCount > 0
            ? workerCount : HTTP2Server.automaticWorkerCount(cores: UsableCores.count())
        workers = (0..<count).map { _ in HTTP2Worker() }
    }

    /// The worker threads started when none are configured: one per core but one, and at least one.
    ///
    /// Why one core is left: a mock gateway nearly always shares its machine with the sender under
    /// test (a CI runner, a laptop). Measured on 2 cores with h2load `-c 4 -m 100` on the same
    /// machine: one worker served 162-174k requests/s, two served 137-143k, because three busy
    /// threads then share two cores (bench/README.md, "Where it stands (fifth round)", "Worker
    /// threads").
    /// - Parameter cores: usable CPU cores (values below 1 count as 1).
    /// - Returns: a thread count of at least 1.
    public static func automaticWorkerCount(cores: Int) -> Int {
        max(1, cores - 1)
    }

    /// The worker threads serving connections.
    public var workerCount: Int { workers.count }

    /// Binds every listener and starts the worker threads. Call before the accept loop runs,
    /// or on its thread.
    /// - Throws: `TransportError` naming the address that could not be bound.
    public func start() throws {
        do {
            try bindListeners()
        } catch {
            // Not started: nothing else holds these yet, so release them here.
            for listener in listeners { evconnlistener_free(listener) }
            listeners.removeAll()
            throw error
        }
        for worker in workers { worker.loop.start() }
    }

    /// The configured listeners' contexts, in order; set by `start()`.
    private var configuredContexts: [ListenerContext] = []

    /// Connections open now on the configured listeners (not on those added by `addListener`).
    public var configuredOpenConnections: Int {
        configuredContexts.reduce(0) { $0 + $1.open.load(ordering: .relaxed) }
    }

    private func bindListeners() throws {
        for (index, spec) in specs.enumerated() {
            let made = ListenerContext(server: self, index: index, id: index, spec: spec, handler: handler)
            let context = Unmanaged.passRetained(made)
            let (listener, bound) = try makeListener(context)
            configuredContexts.append(made)
            boundAddresses.append(bound)
            listeners.append(listener)
        }
    }

    /// A listener for `context`'s spec, calling back with it; `context` is released on a throw.
    private func makeListener(_ context: Unmanaged<ListenerContext>) throws -> (OpaquePointer, SocketAddress) {
        let spec = context.takeUnretainedValue().spec
        let (listener, bound): (OpaquePointer, SocketAddress)
        do {
            (listener, bound) = try Self.listener(
                host: spec.host, port: spec.port, on: acceptLoop.base, context: context.toOpaque()
            ) { _, fd, address, length, arg in
                let context = Unmanaged<ListenerContext>.fromOpaque(arg!).takeUnretainedValue()
                context.server.accepted(fd: fd, address: address, length: length, context: context)
            }
        } catch {
            context.release()
            throw error
        }
        // Out of file descriptors, accept() fails at once on every loop turn: pause instead.
        evconnlistener_set_error_cb(listener) { listener, arg in
            let context = Unmanaged<ListenerContext>.fromOpaque(arg!).takeUnretainedValue()
            context.server.acceptFailed(listener)
        }
        return (listener, bound)
    }

    /// Listeners added at runtime, by id, with their retained contexts; touched on the accept loop only.
    private var added: [Int: (listener: OpaquePointer, context: Unmanaged<ListenerContext>)] = [:]
    /// The next runtime listener's id (the configured ones are 0 to `specs.count - 1`); accept loop only.
    private var nextListenerID = -1
    /// True once `shutdown` freed the listeners: no listener is added after it. Accept loop only.
    private var closedForListeners = false

    /// Binds one more listener while the server runs, whose connections `handler` serves (as
    /// listener 0 of its own list: `AcceptedConnection.listenerIndex` 0) on the same workers; its
    /// connections' `AcceptedConnection.listenerID` is the id returned. Blocks until the accept
    /// loop (which must be running) has bound it; call from a thread other than the loops'.
    /// - Returns: the listener's id (for `removeListener`) and the address bound (the port chosen for 0).
    /// - Throws: `TransportError` naming the address (in use, unresolvable), or when the server has stopped.
    public func addListener(_ spec: HTTP2ListenerSpec, handler: HTTP2RequestHandler) throws -> (
        id: Int, address: SocketAddress
    ) {
        let outcome = Mutex<Result<(id: Int, address: SocketAddress), TransportError>?>(nil)
        acceptLoop.execute { [self] in
            let result: Result<(id: Int, address: SocketAddress), TransportError>
            if closedForListeners {
                result = .failure(TransportError("the server has stopped; no listener can be added"))
            } else {
                if nextListenerID < 0 { nextListenerID = specs.count }
                let id = nextListenerID
                let context = Unmanaged.passRetained(
                    ListenerContext(server: self, index: 0, id: id, spec: spec, handler: handler))
                do {
                    let (listener, bound) = try makeListener(context)
                    nextListenerID += 1
                    added[id] = (listener, context)
                    listeners.append(listener)
                    result = .success((id, bound))
                } catch let error as TransportError {
                    result = .failure(error)
                } catch {
                    result = .failure(TransportError("cannot listen on \(spec.host):\(spec.port): \(error)"))
                }
            }
            outcome.withLock { $0 = result }
        }
        while true {
            if let result = outcome.withLock({ $0 }) { return try result.get() }
            usleep(50)
        }
    }

    /// Closes a listener added by `addListener`: no more connections are accepted on it, its
    /// connections get GOAWAY NO_ERROR with `debugData`, their in-flight streams up to
    /// `drainTimeout` seconds, then whatever is still open is closed. Blocks until the listener is
    /// closed and the GOAWAYs are sent; then, unless `drainInBackground`, until the connections are
    /// gone too (with it, the drain and the final close run on a background thread, so a control
    /// thread that deletes an isolated gateway is not held for the drain). Call from a thread
    /// other than the loops'.
    /// - Returns: false when no such listener is open (unknown, removed, or the server stopped).
    @discardableResult
    public func removeListener(
        id: Int, debugData: [UInt8], drainTimeout: Double, drainInBackground: Bool = false
    ) -> Bool {
        let found = Mutex<Bool?>(nil)
        acceptLoop.execute { [self] in
            guard let entry = added.removeValue(forKey: id) else {
                found.withLock { $0 = false }
                return
            }
            evconnlistener_free(entry.listener)
            listeners.removeAll { $0 == entry.listener }
            entry.context.release()
            found.withLock { $0 = true }
        }
        var removed: Bool?
        while removed == nil {
            usleep(50)
            removed = found.withLock { $0 }
        }
        guard removed == true else { return false }
        let open = collect { connections in
            connections.filter { $0.info.listenerID == id }.map { connection in
                connection.shutdownGracefully(debugData: debugData, drainTimeout: drainTimeout)
                return connection.info.id
            }
        }
        guard !open.isEmpty else { return true }
        if drainInBackground {
            DispatchQueue.global().async { [self] in finishDrain(listenerID: id, drainTimeout: drainTimeout) }
        } else {
            finishDrain(listenerID: id, drainTimeout: drainTimeout)
        }
        return true
    }

    /// Waits up to `drainTimeout` + 1 seconds for the connections of a removed listener to end,
    /// then closes whatever is still open.
    private func finishDrain(listenerID id: Int, drainTimeout: Double) {
        var waited = 0.0
        var remaining = 1
        while remaining > 0 && waited < drainTimeout + 1 {
            usleep(2000)
            waited += 0.002
            remaining = collect { connections in connections.filter { $0.info.listenerID == id }.map(\.info.id) }.count
        }
        if remaining > 0 {
            forEachWorker { connections in
                for connection in connections where connection.info.listenerID == id { connection.close() }
            }
        }
    }

    /// A libevent listener on `host`:`port` (0: any free port) calling `callback` with `context`
    /// for each accepted connection, on `base`; and the address bound (the port chosen). Shared
    /// by the HTTP/2 and the byte-stream servers.
    /// - Throws: `TransportError` naming the address; nothing is left open then.
    static func listener(
        host: String, port: Int, on base: OpaquePointer, context: UnsafeMutableRawPointer,
        callback: evconnlistener_cb
    ) throws -> (listener: OpaquePointer, bound: SocketAddress) {
        let address = try SocketAddress(host: host, port: port)
        let fd = try listeningSocket(address)
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        guard
            let listener = evconnlistener_new(
                base, callback, context, UInt32(LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC), 0, fd)
        else {
            Glibc.close(fd)
            throw TransportError("cannot listen on \(address)")
        }
        return (listener, SocketAddress(storage: bound, length: length))
    }

    /// A non-blocking, close-on-exec socket bound to `address` and listening.
    static func listeningSocket(_ address: SocketAddress) throws -> Int32 {
        let family = Int32(address.storage.ss_family)
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError("socket() failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = address.storage
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) }
        }
        guard bound == 0, listen(fd, 4096) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw TransportError("cannot listen on \(address): \(message)")
        }
        return fd
    }

    /// accept() failed (typically EMFILE): stop accepting for 100 ms rather than spin.
    private func acceptFailed(_ listener: OpaquePointer?) {
        let code = errno
        guard let listener else { return }
        acceptFailures.report(code: code, now: HTTP2Connection.monotonicSeconds())
        evconnlistener_disable(listener)
        acceptLoop.schedule(after: 0.1) { [weak self] in
            guard let self, self.listeners.contains(listener) else { return }
            evconnlistener_enable(listener)
        }
    }

    private func accepted(fd: Int32, address: UnsafeMutablePointer<sockaddr>?, length: Int32, context: ListenerContext)
    {
        let listenerIndex = context.index
        let handler = context.handler
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        if let address {
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.baseAddress!.copyMemory(from: address, byteCount: min(Int(length), raw.count))
            }
        }
        let admission = handler.admit(listenerIndex: listenerIndex)
        let peer = SocketAddress(storage: storage, length: socklen_t(length)).description
        if admission == .refuse {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            Glibc.close(fd)
            handler.connectionRefused(listenerIndex: listenerIndex, peer: peer)
            return
        }
        let id = nextConnectionID.add(1, ordering: .relaxed).oldValue
        let worker = workers[nextWorker.add(1, ordering: .relaxed).oldValue % workers.count]
        let spec = context.spec
        let info = AcceptedConnection(
            id: id, listenerIndex: listenerIndex, peer: peer, alpn: nil, tls: spec.tls != nil, listenerID: context.id)
        openCount.add(1, ordering: .relaxed)
        context.open.add(1, ordering: .relaxed)
        worker.loop.execute { [self] in
            worker.adopt(
                fd: fd, info: info, tls: spec.tls, settings: spec.settings, handler: handler,
                admission: admission
            ) { [self] _ in
                openCount.subtract(1, ordering: .relaxed)
                context.open.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// How long a silent connection is held before it is closed, in seconds.
    public static let silentLimit = 600.0

    /// Connections open now, across all listeners.
    public var openConnections: Int { openCount.load(ordering: .relaxed) }

    /// Runs `body` on every worker's thread with its live connections. Safe from any thread.
    public func forEachWorker(_ body: @escaping @Sendable ([HTTP2Connection]) -> Void) {
        for worker in workers {
            worker.loop.execute { body(Array(worker.connections.values)) }
        }
    }

    /// Runs `body` on every worker's thread with its live connections and gathers the results.
    /// Blocks the caller until every worker answered or `timeout` seconds passed; call from a
    /// thread that is not a worker (e.g. the control API's loop).
    public func collect<T: Sendable>(timeout: Double = 2, _ body: @escaping @Sendable ([HTTP2Connection]) -> [T]) -> [T]
    {
        let gathered = Mutex<(answers: Int, items: [T])>((0, []))
        for worker in workers {
            worker.loop.execute {
                let items = body(Array(worker.connections.values))
                gathered.withLock {
                    $0.answers += 1
                    $0.items += items
                }
            }
        }
        var waited = 0.0
        while gathered.withLock({ $0.answers }) < workers.count && waited < timeout {
            usleep(200)
            waited += 0.0002
        }
        return gathered.withLock { $0.items }
    }

    /// Stops accepting, sends every connection GOAWAY NO_ERROR with `debugData`, lets in-flight
    /// streams finish for up to `drainTimeout` seconds, then stops the workers. Blocks until done.
    /// Call from a thread other than the loops'.
    public func shutdown(debugData: [UInt8], drainTimeout: Double) {
        let done = Atomic<Bool>(false)
        acceptLoop.execute { [self] in
            for listener in listeners { evconnlistener_free(listener) }
            listeners.removeAll()
            for entry in added.values { entry.context.release() }
            added.removeAll()
            closedForListeners = true
            done.store(true, ordering: .releasing)
        }
        while !done.load(ordering: .acquiring) { usleep(500) }
        forEachWorker { connections in
            for connection in connections {
                connection.shutdownGracefully(debugData: debugData, drainTimeout: drainTimeout)
            }
        }
        var waited = 0.0
        while openConnections > 0 && waited < drainTimeout + 1 {
            usleep(2000)
            waited += 0.002
        }
        forEachWorker { connections in
            for connection in connections { connection.close() }
        }
        for worker in workers {
            worker.loop.stop()
            worker.loop.waitUntilFinished()
        }
    }
}

/// What a listener's accept callback needs: retained for the server's life for a configured
/// listener, until `removeListener(id:debugData:drainTimeout:)` for one added at runtime.
private final class ListenerContext: Sendable {
    unowned let server: HTTP2Server
    /// The listener's index in its handler's list (`AcceptedConnection.listenerIndex`).
    let index: Int
    /// The server's id of the listener (`AcceptedConnection.listenerID`).
    let id: Int
    let spec: HTTP2ListenerSpec
    let handler: HTTP2RequestHandler
    /// Connections accepted on it and not yet closed.
    let open = Atomic<Int>(0)
    init(server: HTTP2Server, index: Int, id: Int, spec: HTTP2ListenerSpec, handler: HTTP2RequestHandler) {
        self.server = server
        self.index = index
        self.id = id
        self.spec = spec
        self.handler = handler
    }
}

/// One worker thread's loop and the connections it owns.
final class HTTP2Worker: @unchecked Sendable {
    let loop = EventLoop()
    /// Live connections by id; touched only on `loop`'s thread.
    var connections: [UInt64: HTTP2Connection] = [:]

    func adopt(
        fd: Int32, info: AcceptedConnection, tls: TLSContext?, settings: HTTP2Settings,
        handler: HTTP2RequestHandler, admission: HTTP2Admission, closed: @escaping (HTTP2Connection) -> Void
    ) {
        let connection = HTTP2Connection(
            fd: fd, info: info, loop: loop, tls: tls, settings: settings,
            handler: handler
        ) { [weak self] connection in
            self?.connections.removeValue(forKey: connection.info.id)
            closed(connection)
        }
        connections[info.id] = connection
        switch admission {
        case .proceed(let delay) where delay > 0:
            // Nothing is read meanwhile: the client's ClientHello waits in the kernel.
            loop.schedule(after: delay) { [weak connection] in connection?.start() }
            handler.transportEvent(.handshakeDelayed(seconds: delay), on: connection)
        case .silent:
            connection.startSilently()
            handler.transportEvent(.heldSilent, on: connection)
            loop.schedule(after: HTTP2Server.silentLimit) { [weak connection] in connection?.close() }
        default:
            connection.start()
        }
    }
}
