/// The usage text of `mock-apns send`.
enum SendHelp {
    static let text = """
        Usage: mock-apns send --device-token TOKEN [options] (PAYLOAD_JSON | @FILE | @-)
               mock-apns send --topic BUNDLE_ID (--create-channel | --list-channels |
                 --read-channel ID | --delete-channel ID) [options]
               mock-apns send --topic BUNDLE_ID --broadcast ID [options] (PAYLOAD_JSON | @FILE | @-)

        Sends a push notification over HTTP/2 to MockAPNs or any APNs-compatible endpoint and
        prints the answer. Exit status: 0 when every response is 200 (2xx for a channel request),
        1 otherwise, 2 on usage errors.

        Target:
          --url URL                  https://HOST[:PORT] (TLS, ALPN h2) or http://HOST[:PORT] (cleartext
                                     HTTP/2, prior knowledge); IPv6 in brackets (default https://localhost:2197)
          --cacert FILE              trust the CA certificates in this PEM file instead of the system store
          --insecure                 do not verify the server's certificate (testing only)
          --cert FILE                client certificate (PEM) for certificate-based authentication; from a
                                     .p12: openssl pkcs12 -in cert.p12 -out cert.pem -nodes
          --cert-key FILE            its private key (PEM; default: read from the --cert file)
          --timeout SECONDS          connect timeout, and the longest wait for a server byte (default 30)

        Notification (values are sent as given, so invalid ones can be tried too):
          --device-token TOKEN       the device token (hex); the request path is /3/device/TOKEN
          --topic TOPIC              apns-topic, usually the app's bundle id
          --push-type TYPE           apns-push-type: alert, background, voip, ...
          --priority N               apns-priority: 10, 5 or 1
          --expiration SECONDS       apns-expiration: UNIX time; 0 = deliver once or never
          --collapse-id ID           apns-collapse-id
          --apns-id UUID             apns-id (the server makes one when absent)
          --authorization VALUE      authorization header, e.g. 'bearer <JWT>'
          --key FILE                 sign a provider token (JWT, ES256, iat now) with this .p8 auth key
          --key-id ID                and send it as 'authorization: bearer <JWT>'; give all three, and
          --team-id ID               not with --authorization (kid is the key ID, iss the team ID)
          --header 'NAME: VALUE'     any header (repeatable); replaces a same-named one from the flags

        Channels and broadcasts (iOS 18; --topic is the app's bundle ID, not sent as apns-topic):
          --create-channel           POST /1/apps/BUNDLE_ID/channels; prints apns-channel-id
          --storage-policy 0|1       its message-storage-policy (default 1, most recent message stored)
          --list-channels            GET /1/apps/BUNDLE_ID/all-channels
          --read-channel ID          GET /1/apps/BUNDLE_ID/channels with apns-channel-id ID
          --delete-channel ID        DELETE /1/apps/BUNDLE_ID/channels with apns-channel-id ID
          --broadcast ID             POST /4/broadcasts/apps/BUNDLE_ID to channel ID with the payload
                                     (apns-push-type liveactivity unless --push-type says otherwise)

        Load:
          --count N                  send the notification N times on one connection (default 1);
                                     with N > 1 a summary is printed instead of each answer
          --concurrency M            keep up to M streams open at once (default 1)

        Payload: the JSON as an argument, @FILE to read a file, @- to read standard input.

        Examples (the second signs a provider token):
          mock-apns send --url https://localhost:2197 --cacert tls/ca.pem \\
            --device-token 740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad \\
            --topic com.example.app --push-type alert '{"aps":{"alert":"Hello"}}'
          mock-apns send --url https://localhost:2197 --cacert tls/ca.pem \\
            --key AuthKey_ABC123DEFG.p8 --key-id ABC123DEFG --team-id DEF123GHIJ \\
            --device-token 740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad \\
            --topic com.example.app --push-type alert '{"aps":{"alert":"Hello"}}'
        """
}
