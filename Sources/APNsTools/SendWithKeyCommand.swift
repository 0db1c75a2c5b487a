import APNsAuth
import HTTP2Client

/// `mock-apns send` as the executable runs it: `SendCommand` plus provider-token signing.
/// `--key FILE --key-id ID --team-id ID` signs a token issued now and sends it as
/// `authorization: bearer <JWT>` (HTTP2Client parses the three flags but cannot sign).
///
/// A token is signed once per run: even with `--count`, a run lasts far less than the hour
/// APNs accepts a token for.
public enum SendWithKeyCommand {
    /// Runs `mock-apns send` with the arguments after `send`, writing to the console.
    /// - Returns: the exit status (see `SendCommand`).
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, output: .console)
    }

    /// Runs `mock-apns send` with the arguments after `send`, writing to `output`.
    /// - Parameter now: the token's `iat`, in seconds since the Unix epoch.
    /// - Returns: the exit status (see `SendCommand`); 2 when the key file cannot be loaded.
    public static func run(_ arguments: [String], output: SendOutput, now: () -> Int64 = APNsTools.now) -> Int32 {
        SendCommand.run(arguments, output: output) { arguments throws(SendUsageError) in
            try parse(arguments, issuedAt: now())
        }
    }

    /// Parses like `SendArgumentParser`, then signs the token `--key` asks for into
    /// `authorization` (and clears `providerKey`). Reads the key file; sends nothing.
    /// - Parameter issuedAt: the token's `iat`, in seconds since the Unix epoch.
    /// - Throws: `SendUsageError` for a bad command line, a key file that cannot be loaded, or
    ///   (hardly possible once the key loaded) an OpenSSL signing failure.
    public static func parse(_ arguments: [String], issuedAt: Int64) throws(SendUsageError) -> SendCommandLine {
        let commandLine = try SendArgumentParser.parse(arguments)
        guard case .send(var options) = commandLine, let key = options.providerKey else { return commandLine }
        let signer: ProviderTokenSigner
        do {
            signer = try ProviderKeyLoader.signer(path: key.path, keyID: key.keyID, teamID: key.teamID)
        } catch {
            throw SendUsageError(error.message)
        }
        do {
            options.authorization = try signer.authorization(issuedAt: issuedAt)
        } catch {
            throw SendUsageError("--key: cannot sign the provider token: \(error)")
        }
        options.providerKey = nil
        return .send(options)
    }
}
