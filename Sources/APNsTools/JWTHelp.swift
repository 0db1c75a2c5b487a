/// The usage text of `mock-apns jwt`.
enum JWTHelp {
    static let text = """
        Usage: mock-apns jwt --key FILE --key-id ID --team-id ID [--issued-at SECONDS]

        Prints a provider token (JWT) for APNs token-based authentication on one line:
        header {"alg":"ES256","kid":ID}, claims {"iss":TEAM_ID,"iat":SECONDS}, signed
        with the .p8 auth key. Send it as the header 'authorization: bearer <JWT>'
        (mock-apns send --authorization 'bearer <JWT>'; or let mock-apns send --key
        sign one). Exit status: 0, 1 if signing fails, 2 on usage errors (including a
        key file that cannot be read).

        Options:
          --key FILE             the APNs auth key (.p8: EC P-256 private key, PEM)
          --key-id ID            the key's ID: the kid header
          --team-id ID           the team ID: the iss claim
          --issued-at SECONDS    the iat claim, whole seconds since 1970 (default: now);
                                 an hour old or more tests ExpiredProviderToken
          -h, --help             print this help

        Example:
          mock-apns jwt --key AuthKey_ABC123DEFG.p8 --key-id ABC123DEFG \\
            --team-id DEF123GHIJ
        """
}
