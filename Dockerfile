# MockAPNs container image.
#
# Docker is NOT needed to build, run or test MockAPNs (`make run`, `make test`
# use the local Swift toolchain). This file only packages the server for people
# who want to run it next to a sender in containers; see docker-compose.yml.
#
#   docker build -t mockapns:dev .
#   docker run --rm -p 2197:2197 -p 127.0.0.1:8197:8197 mockapns:dev
#   docker run --rm -e MOCK_APNS_CONTROL_TOKEN=... -p 2197:2197 -p 8197:8197 mockapns:dev
#
# The control API listens on the container's every address without a token
# (--control-insecure-no-token): publish it on the host's loopback only, or set
# MOCK_APNS_CONTROL_TOKEN, which every control request must then carry as
# `Authorization: Bearer ...` (README "Security").
#
# The image ships the TEST-ONLY development certificate from tls/ (see
# tls/README.md). Never expose this container to untrusted networks.

ARG SWIFT_VERSION=6.3

# ---------------------------------------------------------------- build stage
FROM swift:${SWIFT_VERSION}-bookworm AS build

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends \
         libnghttp2-dev libssl-dev libevent-dev libyajl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# Only what the manifest needs (keeps a host .build/ directory out of the image).
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests

RUN swift build -c release --product mock-apns \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/mock-apns" /out/mock-apns

# -------------------------------------------------------------- runtime stage
# The -slim Swift image is Debian 12 plus the Swift runtime libraries
# (/usr/lib/swift/linux/*.so) and no compiler.
FROM swift:${SWIFT_VERSION}-bookworm-slim

RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends \
         libnghttp2-14 libssl3 libevent-2.1-7 libevent-pthreads-2.1-7 libyajl2 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin mockapns

WORKDIR /app
COPY --from=build /out/mock-apns /app/mock-apns
COPY tls/ /app/tls/

# 2197 and 8197 are unprivileged ports, so the server does not need root.
# To serve on 443 from the host's point of view, publish it: -p 443:2197.
USER mockapns

# 2197: APNs provider API (HTTP/2 over TLS)   8197: control API (HTTP/1.1)
EXPOSE 2197 8197

# Healthy once the control API answers GET /v1/health with "status":"ok"
# (`mock-apns health`, no curl in the image). A test checks the URL against CMD.
HEALTHCHECK --interval=5s --timeout=6s --start-period=10s --retries=3 CMD ["/app/mock-apns", "health", "--control", "http://127.0.0.1:8197"]

ENTRYPOINT ["/app/mock-apns"]
CMD ["serve", "--listen", "0.0.0.0:2197", "--control", "0.0.0.0:8197", "--control-allow-host", "mock-apns", "--control-insecure-no-token", "--tls-cert", "/app/tls/server.pem", "--tls-key", "/app/tls/server-key.pem"]
