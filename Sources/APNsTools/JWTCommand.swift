import APNsAuth
import HTTP2Client

/// `mock-apns jwt`: prints a provider token signed with a `.p8` auth key, for
/// `mock-apns send --authorization 'bearer <JWT>'`, curl or any other client.
///
/// Exit status: 0 when the token is printed, 1 when OpenSSL cannot sign, 2 on usage errors
/// (including a key file that cannot be read or is no P-256 key).
public enum JWTCommand {
    /// Runs `mock-apns jwt` with the arguments after `jwt`, writing to the console.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, output: .console)
    }

    /// Runs `mock-apns jwt` with the arguments after `jwt`, writing to `output` (its
    /// `SendOutput` is just a pair of line sinks).
    /// - Parameter now: the `iat` when `--issued-at` is absent, in seconds since the Unix epoch.
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], output: SendOutput, now: () -> Int64 = APNsTools.now) -> Int32 {
        let options: JWTOptions
        do {
            switch try JWTArgumentParser.parse(arguments) {
            case .help(let text):
                output.standardOutput(text)
                return 0
            case .sign(let parsed):
                options = parsed
            }
        } catch {
            output.standardError(error.description)
            return 2
        }
        let signer: ProviderTokenSigner
        do {
            signer = try ProviderKeyLoader.signer(path: options.keyPath, keyID: options.keyID, teamID: options.teamID)
        } catch {
            output.standardError(JWTUsageError(error.message).description)
            return 2
        }
        do {
            output.standardOutput(try signer.token(issuedAt: options.issuedAt ?? now()))
            return 0
        } catch {
            output.standardError("mock-apns jwt: cannot sign the token: \(error)")
            return 1
        }
    }
}
