#!/usr/bin/env bash
# =============================================================================
#  MockAPNs provider-authentication test fixtures
#
#  !!! TEST ONLY - DO NOT TRUST IN PRODUCTION !!!
#
#  Writes into fixtures/auth/:
#    - APNs auth keys (AuthKey_<KEYID>.p8: PKCS#8 EC P-256 private keys, the
#      form Apple issues) and keys.json describing each key's team, scope,
#      topics and environments;
#    - a client certificate authority (client-ca.pem, client-ca-key.pem);
#    - client certificates shaped like Apple's push certificates: subject UID =
#      bundle ID, environment extensions 1.2.840.113635.100.6.3.1 (sandbox) /
#      .6.3.2 (production), and for multi-topic certificates the topics
#      extension 1.2.840.113635.100.6.3.6 in pushy's encoding
#      SEQUENCE { UTF8String topic, SEQUENCE { UTF8String type }, ... };
#    - one expired client certificate.
#  Every private key here is public. Nothing here may be trusted outside tests.
#
#  Usage:   tls/generate-auth-fixtures.sh      (from anywhere)
#  Needs:   bash and the openssl command-line tool (OpenSSL 3.x); nothing else.
#  Running it again regenerates every file (new keys, new CA).
# =============================================================================
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/fixtures/auth"
ORG="MockAPNs TEST ONLY"
CA_DAYS=10950      # ~30 years
CLIENT_DAYS=7300   # ~20 years
APP="com.example.app"

# shellcheck source=lib.sh
. "$ROOT/tls/lib.sh"  # $WORK, $START, newkey, sign
mkdir -p "$WORK/out/unlisted"

# --- Provider (token) keys ------------------------------------------------------
# key id | team id | scope | topics (comma-separated) | environments | related key
KEYS=(
  "TEAMSBX001|TEAM000001|team||sandbox|"
  "TEAMPRD001|TEAM000001|team||production|"
  "TEAMUNI001|TEAM000001|team||sandbox,production|"
  "TOPICA0001|TEAM000001|topics|com.example.app|sandbox,production|TOPICB0001"
  "TOPICB0001|TEAM000001|topics|com.example.app,com.example.other|sandbox,production|TOPICA0001"
  "TOPICC0001|TEAM000001|topics|com.example.third|sandbox,production|"
  "OTHERTEAM1|TEAM000002|team||sandbox,production|"
)

json_list() { # json_list a,b,c -> "a", "b", "c"
    local IFS=','; local out="" item
    for item in $1; do out="${out:+$out, }\"$item\""; done
    printf '%s' "$out"
}

{
  echo '{'
  echo '  "comment": "TEST ONLY: MockAPNs provider-token fixtures. Every private key here is public. See README.md.",'
  echo '  "keys": ['
  n=${#KEYS[@]}; i=0
  for row in "${KEYS[@]}"; do
    IFS='|' read -r kid team scope topics envs related <<<"$row"
    newkey "$WORK/out/AuthKey_$kid.p8"
    i=$((i + 1))
    line="    {\"keyId\": \"$kid\", \"teamId\": \"$team\", \"file\": \"AuthKey_$kid.p8\", \"scope\": \"$scope\""
    [ -n "$topics" ] && line="$line, \"topics\": [$(json_list "$topics")]"
    line="$line, \"environments\": [$(json_list "$envs")]"
    [ -n "$related" ] && line="$line, \"relatedKeyId\": \"$related\""
    line="$line}"
    [ "$i" -lt "$n" ] && line="$line,"
    echo "$line"
  done
  echo '  ]'
  echo '}'
} >"$WORK/out/keys.json"

# The same key as a PEM public key, for configurations that hold no private key.
openssl pkey -in "$WORK/out/AuthKey_TEAMUNI001.p8" -pubout -out "$WORK/out/AuthKey_TEAMUNI001.pub.pem"
# A key no configuration lists: "unknown key" cases.
newkey "$WORK/out/unlisted/AuthKey_UNLISTED01.p8"

# --- Client CA ------------------------------------------------------------------
cat >"$WORK/ca.cnf" <<EOF
[ req ]
distinguished_name = dn
prompt             = no
[ dn ]
O  = ${ORG}
CN = MockAPNs Client CA (TEST ONLY)
[ v3_ca ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
EOF

newkey "$WORK/out/client-ca-key.pem"
openssl req -new -config "$WORK/ca.cnf" -key "$WORK/out/client-ca-key.pem" -out "$WORK/ca.csr"
sign ca -selfsign -keyfile "$WORK/out/client-ca-key.pem" -startdate "$START" -days "$CA_DAYS" \
    -extfile "$WORK/ca.cnf" -extensions v3_ca -in "$WORK/ca.csr" -out "$WORK/out/client-ca.pem"

# --- Client certificates ------------------------------------------------------------
# Extensions: the environment OIDs carry ASN.1 NULL; the topics extension lists
# topic/type pairs as pushy's apns-extensions.cnf does. None is critical, so TLS
# stacks that do not know them still verify the chain.
# openssl has no section inheritance: write each section out in full.
ext_section() { # ext_section <name> <sandbox:0|1> <production:0|1> <multi:0|1>
    {
      echo "[ $1 ]"
      echo "basicConstraints       = critical, CA:FALSE"
      echo "keyUsage               = critical, digitalSignature"
      echo "extendedKeyUsage       = clientAuth"
      echo "subjectKeyIdentifier   = hash"
      echo "authorityKeyIdentifier = keyid, issuer"
      [ "$2" = 1 ] && echo "1.2.840.113635.100.6.3.1 = ASN1:NULL"
      [ "$3" = 1 ] && echo "1.2.840.113635.100.6.3.2 = ASN1:NULL"
      [ "$4" = 1 ] && echo "1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics"
      echo
    } >>"$WORK/client-ext.cnf"
}
cat >"$WORK/client-ext.cnf" <<EOF
[ topics ]
topic.0 = UTF8String:${APP}
topic.1 = SEQWRAP,UTF8String:app
topic.2 = UTF8String:${APP}.voip
topic.3 = SEQWRAP,UTF8String:voip
topic.4 = UTF8String:${APP}.complication
topic.5 = SEQWRAP,UTF8String:complication

EOF

# name | sandbox | production | multi-topic | validity
CLIENTS=(
  "client-sandbox-single|1|0|0|valid"
  "client-production-single|0|1|0|valid"
  "client-universal-single|1|1|0|valid"
  "client-sandbox-multi|1|0|1|valid"
  "client-production-multi|0|1|1|valid"
  "client-universal-multi|1|1|1|valid"
  "client-noenv-single|0|0|0|valid"
  "client-expired|1|1|0|expired"
)

for row in "${CLIENTS[@]}"; do
  IFS='|' read -r name sbx prd multi validity <<<"$row"
  section="ext_${name//-/_}"
  ext_section "$section" "$sbx" "$prd" "$multi"
done

for row in "${CLIENTS[@]}"; do
  IFS='|' read -r name sbx prd multi validity <<<"$row"
  section="ext_${name//-/_}"
  cat >"$WORK/$name.req.cnf" <<EOF
[ req ]
distinguished_name = dn
prompt             = no
[ dn ]
CN  = Apple Push Services: ${APP}
UID = ${APP}
O   = ${ORG}
EOF
  newkey "$WORK/out/$name-key.pem"
  openssl req -new -config "$WORK/$name.req.cnf" -key "$WORK/out/$name-key.pem" -out "$WORK/$name.csr"
  if [ "$validity" = expired ]; then
    dates=(-startdate 20200101000000Z -enddate 20210101000000Z)
  else
    dates=(-startdate "$START" -days "$CLIENT_DAYS")
  fi
  sign "$name" -cert "$WORK/out/client-ca.pem" -keyfile "$WORK/out/client-ca-key.pem" "${dates[@]}" \
      -extfile "$WORK/client-ext.cnf" -extensions "$section" -in "$WORK/$name.csr" -out "$WORK/out/$name.pem"
done

# --- Self-check before replacing anything ------------------------------------------
for row in "${CLIENTS[@]}"; do
  IFS='|' read -r name _ _ _ validity <<<"$row"
  if [ "$validity" = expired ]; then
    openssl verify -CAfile "$WORK/out/client-ca.pem" "$WORK/out/$name.pem" >/dev/null 2>&1 \
      && { echo "error: $name should fail verification as expired" >&2; exit 1; }
    openssl verify -no_check_time -CAfile "$WORK/out/client-ca.pem" -purpose sslclient "$WORK/out/$name.pem" >/dev/null
  else
    openssl verify -CAfile "$WORK/out/client-ca.pem" -purpose sslclient "$WORK/out/$name.pem" >/dev/null
  fi
  openssl pkey -in "$WORK/out/$name-key.pem" -pubout | cmp -s - <(openssl x509 -in "$WORK/out/$name.pem" -noout -pubkey) \
    || { echo "error: $name key does not match its certificate" >&2; exit 1; }
done

# --- Install into fixtures/auth/ ------------------------------------------------------
# Keep README.md (hand-written); replace everything generated.
mkdir -p "$OUT/unlisted"
rm -f "$OUT"/*.pem "$OUT"/*.p8 "$OUT"/keys.json "$OUT"/unlisted/*.p8
(cd "$WORK/out" && find . -type f) | while read -r f; do
  install -m 0644 "$WORK/out/$f" "$OUT/$f"
done

echo "MockAPNs TEST-ONLY auth fixtures written to $OUT:"
(cd "$OUT" && find . -type f ! -name README.md | sort | sed 's|^\./|  |')
for row in "${CLIENTS[@]}"; do
  IFS='|' read -r name _ _ _ _ <<<"$row"
  echo "$name: $(openssl x509 -in "$OUT/$name.pem" -noout -subject -nameopt RFC2253 | sed 's/^subject=//')"
  echo "    $(openssl x509 -in "$OUT/$name.pem" -noout -startdate)  $(openssl x509 -in "$OUT/$name.pem" -noout -enddate)"
done
