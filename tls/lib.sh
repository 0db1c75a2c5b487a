# =============================================================================
#  Shared set-up of tls/generate.sh and tls/generate-auth-fixtures.sh: sourced
#  by them, not run. TEST ONLY, like everything they make.
#
#  Gives: $WORK (a scratch directory removed on exit), $START (notBefore, one
#  day ago), $WORK/signing.cnf, newkey <file> and sign <log-name> <args...>.
# =============================================================================

command -v openssl >/dev/null 2>&1 || { echo "error: openssl not found in PATH" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# An EC P-256 key, written as unencrypted PKCS#8 ("BEGIN PRIVATE KEY").
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

# Minimal "openssl ca" setup. Used instead of "openssl x509 -req" because it
# can backdate notBefore (OpenSSL 3.0's req/x509 commands cannot), so clients
# whose clock lags a little (VMs, containers) still accept fresh certificates.
# Every subject keeps its request's order (-preserveDN); the policy only says
# which fields may appear.
: >"$WORK/index.txt"
cat >"$WORK/signing.cnf" <<EOF
[ ca ]
default_ca = mockapns_ca

[ mockapns_ca ]
database        = $WORK/index.txt
new_certs_dir   = $WORK
rand_serial     = yes
default_md      = sha256
policy          = policy_any
unique_subject  = no
copy_extensions = none
email_in_dn     = no

[ policy_any ]
commonName             = supplied
UID                    = optional
organizationName       = optional
organizationalUnitName = optional
EOF

# notBefore = 1 day ago (GNU date first, then BSD/macOS date).
START="$(date -u -d '1 day ago' +%Y%m%d%H%M%SZ 2>/dev/null || date -u -v-1d +%Y%m%d%H%M%SZ)"

sign() { # sign <log-name> <openssl ca args...>; the dates are the caller's (-startdate "$START" ...)
    local log="$WORK/$1.log"; shift
    openssl ca -batch -notext -preserveDN -rand_serial -config "$WORK/signing.cnf" "$@" 2>"$log" \
        || { cat "$log" >&2; exit 1; }
}
