/// The application behind a `ByteStreamServer`'s listeners: told of each connection once its TLS
/// handshake is done, of every chunk of bytes it reads, and of its close. Called on the server's
/// loop thread only, one call at a time.
public protocol ByteStreamHandler: AnyObject, Sendable {
    /// The connection is established (the TLS handshake done, `info.clientCertificate` known).
    func connectionOpened(_ connection: ByteStreamConnection)
    /// `bytes` arrived, decrypted; valid only during the call.
    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection)
    /// The connection closed; `byPeer` when the peer closed it or the socket failed. Not called
    /// for a connection whose handshake never finished.
    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool)
}
