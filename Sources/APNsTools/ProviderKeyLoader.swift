import APNsAuth
import Glibc

/// Loads the `.p8` auth key named by `--key` for `jwt` and `send`, with an error that names the
/// flag and the file (each command wraps it in its own usage error, exit status 2).
enum ProviderKeyLoader {
    /// Why the key could not be loaded, e.g. `--key: cannot read k.p8: No such file or directory`.
    struct Failure: Error {
        let message: String
    }

    /// A signer for `kid` = `keyID`, `iss` = `teamID` with the key in `path`.
    static func signer(path: String, keyID: String, teamID: String) throws(Failure) -> ProviderTokenSigner {
        // Checked first for the system's reason (ENOENT, EACCES); APNsAuth only says "cannot read".
        guard access(path, R_OK) == 0 else {
            throw Failure(message: "--key: cannot read \(path): \(String(cString: strerror(errno)))")
        }
        do {
            return try ProviderTokenSigner(p8Path: path, keyID: keyID, teamID: teamID)
        } catch {
            // AuthMaterialError's text starts with the path. A P-256 public key (the verifying
            // half of a .p8, e.g. AuthKey_X.pub.pem) is the right key in the wrong form: the
            // error says so by itself.
            if (try? ES256PublicKey(contentsOfFile: path)) != nil {
                throw Failure(message: "--key: \(error)")
            }
            throw Failure(message: "--key: not an APNs auth key (EC P-256 PEM): \(error)")
        }
    }
}
