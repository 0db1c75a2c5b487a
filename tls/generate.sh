#!/usr/bin/env bash
# =============================================================================
#  MockAPNs development TLS material generator
#
#  !!! TEST ONLY - DO NOT TRUST IN PRODUCTION !!!
#
#  This script creates a throw-away certificate authority and a server
#  certificate for MockAPNs. The CA private key (ca-key.pem) is committed to a
#  public repository, so ANYONE can mint certificates that chain to this CA.
#  Only trust ca.pem in disposable test environments (CI, containers, a dev
#  VM), never in a browser, a production host, or a shared machine's system
#  trust store beyond a test run.
#
#  Usage:   tls/generate.sh            (from anywhere; writes next to itself)
#           tls/generate.sh --keep-ca  (a new server certificate and key from
#                                       the CA already in tls/: ca.pem stays)
#  Needs:   bash and the openssl command-line tool (OpenSSL 3.x); nothing else.
#
#  Running it without --keep-ca regenerates every file from scratch (new keys,
#  new serials); anything that trusted the old ca.pem must be given the new one.
# =============================================================================
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORG="MockAPNs TEST ONLY - DO NOT TRUST IN PRODUCTION"
CA_DAYS=10950      # ~30 years
SERVER_DAYS=7300   # ~20 years

KEEP_CA=0
case "${1:-}" in
    "") ;;
    --keep-ca) KEEP_CA=1 ;;
    *) echo "usage: tls/generate.sh [--keep-ca]" >&2; exit 2 ;;
esac

# The names the server certificate covers: Apple's device-push hosts and its
# broadcast and channel-management hosts (docs/broadcast.md A1); every Apple
# name is also a Docker network alias in docker-compose.yml (a test keeps the
# lists equal).
HOSTS=(
    localhost
    api.push.apple.com
    api.sandbox.push.apple.com
    api.development.push.apple.com
    api-broadcast.push.apple.com
    api-broadcast.sandbox.push.apple.com
    api-manage-broadcast.push.apple.com
    api-manage-broadcast.sandbox.push.apple.com
)

# shellcheck source=lib.sh
. "$DIR/lib.sh"  # $WORK, $START, newkey, sign

# --- OpenSSL configuration ---------------------------------------------------
cat >"$WORK/ca.cnf" <<EOF
[ req ]
distinguished_name = dn
prompt             = no

[ dn ]
O  = ${ORG}
OU = Development CA
CN = MockAPNs Development CA (TEST ONLY)

[ v3_ca ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
EOF

cat >"$WORK/server.cnf" <<EOF
[ req ]
distinguished_name = dn
prompt             = no

[ dn ]
O  = ${ORG}
OU = MockAPNs server
CN = localhost

[ v3_server ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid, issuer
subjectAltName         = @alt_names

[ alt_names ]
IP.1  = 127.0.0.1
IP.2  = ::1
EOF
for i in "${!HOSTS[@]}"; do echo "DNS.$((i + 1)) = ${HOSTS[$i]}" >>"$WORK/server.cnf"; done

# --- CA ------------------------------------------------------------------------
if [ "$KEEP_CA" = 1 ]; then
    cp "$DIR/ca.pem" "$DIR/ca-key.pem" "$WORK/"
else
    newkey "$WORK/ca-key.pem"
    openssl req -new -config "$WORK/ca.cnf" -key "$WORK/ca-key.pem" -out "$WORK/ca.csr"
    sign ca -selfsign -keyfile "$WORK/ca-key.pem" -startdate "$START" -days "$CA_DAYS" \
        -extfile "$WORK/ca.cnf" -extensions v3_ca \
        -in "$WORK/ca.csr" -out "$WORK/ca.pem"
fi

# --- Server ----------------------------------------------------------------------
newkey "$WORK/server-key.pem"
openssl req -new -config "$WORK/server.cnf" -key "$WORK/server-key.pem" -out "$WORK/server.csr"
sign server -cert "$WORK/ca.pem" -keyfile "$WORK/ca-key.pem" -startdate "$START" -days "$SERVER_DAYS" \
    -extfile "$WORK/server.cnf" -extensions v3_server \
    -in "$WORK/server.csr" -out "$WORK/server.pem"

# --- Self-check before replacing anything ------------------------------------------
openssl verify -CAfile "$WORK/ca.pem" -purpose sslserver "$WORK/server.pem" >/dev/null
for host in "${HOSTS[@]}"; do
    openssl x509 -in "$WORK/server.pem" -noout -checkhost "$host" | grep -q 'does match' \
        || { echo "error: server cert does not match $host" >&2; exit 1; }
done
for ip in 127.0.0.1 ::1; do
    openssl x509 -in "$WORK/server.pem" -noout -checkip "$ip" | grep -q 'does match' \
        || { echo "error: server cert does not match $ip" >&2; exit 1; }
done
openssl pkey -in "$WORK/server-key.pem" -pubout | cmp -s - <(openssl x509 -in "$WORK/server.pem" -noout -pubkey) \
    || { echo "error: server key does not match server cert" >&2; exit 1; }

# --- Install into tls/ --------------------------------------------------------------
# Keys are world-readable on purpose: they are public test fixtures, and the
# server may run as an unprivileged user inside a container.
for f in ca.pem ca-key.pem server.pem server-key.pem; do
    install -m 0644 "$WORK/$f" "$DIR/$f"
done

echo "MockAPNs TEST-ONLY TLS material written to $DIR:"
printf '  %-15s %s\n' \
    ca.pem         "development CA certificate (trust it in test clients only)" \
    ca-key.pem     "development CA private key (EC P-256, PKCS#8, unencrypted)" \
    server.pem     "server certificate, signed by the development CA" \
    server-key.pem "server private key (EC P-256, PKCS#8, unencrypted)"
echo
echo "CA:     $(openssl x509 -in "$DIR/ca.pem" -noout -subject -nameopt RFC2253)"
echo "        $(openssl x509 -in "$DIR/ca.pem" -noout -startdate)  $(openssl x509 -in "$DIR/ca.pem" -noout -enddate)"
echo "Server: $(openssl x509 -in "$DIR/server.pem" -noout -subject -nameopt RFC2253)"
echo "        $(openssl x509 -in "$DIR/server.pem" -noout -startdate)  $(openssl x509 -in "$DIR/server.pem" -noout -enddate)"
echo "        SAN: $(openssl x509 -in "$DIR/server.pem" -noout -ext subjectAltName | tail -n +2 | sed 's/^ *//')"
echo "Verify: $(openssl verify -CAfile "$DIR/ca.pem" "$DIR/server.pem")"
