import APNsAuth
import ControlAPI

/// `POST /v1/provider-tokens`' minter (docs/console.md §6): signs with the server's test key
/// (`ProviderTestKey`), which the server registered among its configured keys.
struct TestKeyTokenMinter: ProviderTokenMinter {
    let key: ProviderTestKey

    var keyID: String { key.signer.keyID }
    var teamID: String { key.signer.teamID }

    func token(issuedAt: Int64) -> String? {
        try? key.signer.token(issuedAt: issuedAt)
    }
}
