#!/usr/bin/env bash
# Installs PostgreSQL (Debian's packages) and pgvector for the comparison bench and the load
# generator's pgvector test. Debian 12 packages no pgvector, so it is built from Debian's own source
# package (trixie's pgvector 0.8.0), fetched from the Debian archive and checked against the
# SHA-256 in Debian's source index before it is unpacked.
set -euo pipefail
VERSION=0.8.0
SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
URL="http://deb.debian.org/debian/pool/main/p/pgvector/pgvector_${VERSION}.orig.tar.gz"
sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"
apt_install() {
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 ||
    { $sudo_ apt-get update >/dev/null && $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null; }
}
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then apt_install postgresql; fi
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
MAJOR=$(basename "$(dirname "$PG_BIN")")
if [ -f "/usr/lib/postgresql/${MAJOR}/lib/vector.so" ]; then echo "pgvector already installed for PostgreSQL ${MAJOR}"; exit 0; fi
apt_install "postgresql-server-dev-${MAJOR}" make gcc curl ca-certificates
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL "$URL" -o "$work/pgvector.tar.gz"
echo "${SHA256}  $work/pgvector.tar.gz" | sha256sum -c --quiet
tar xzf "$work/pgvector.tar.gz" -C "$work"
make -C "$work/pgvector-${VERSION}" -j"$(nproc)" PG_CONFIG="$PG_BIN/pg_config" >/dev/null
$sudo_ make -C "$work/pgvector-${VERSION}" install PG_CONFIG="$PG_BIN/pg_config" >/dev/null
echo "pgvector ${VERSION} installed for PostgreSQL ${MAJOR}"
