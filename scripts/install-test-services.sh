#!/usr/bin/env bash
# Install the Debian packages the tests drive or start themselves, only those missing:
#   chromium    headless browser of tests/pages/ (Playwright drives this binary through
#               executable_path; Playwright never downloads a browser of its own here);
#   postgresql  the server tests/support/postgres_server.py starts for the shared-games
#               tests (in a temporary folder, as the `postgres` user, on a loopback port;
#               stopped afterwards; the package's own cluster is not used);
#   libosmium2-dev (with libprotozero-dev, zlib1g-dev and g++) the headers the compiled PBF
#               reader is built with by the `pip install` that follows (setup.py; the
#               tests compare it with the pyosmium reader and check it was built).
#
# Idempotent and quiet: does nothing when all are there; otherwise (as root, or through
# sudo when available) runs apt-get update and installs what is missing.
set -euo pipefail

have_chromium() {
    command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]
}

have_postgresql() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        return 0
    fi
    for bin in /usr/lib/postgresql/*/bin; do
        if [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ]; then
            return 0
        fi
    done
    return 1
}

have_osmium_headers() {
    [ -f /usr/include/osmium/osm.hpp ] && [ -f /usr/include/protozero/pbf_reader.hpp ] &&
        [ -f /usr/include/zlib.h ] && command -v g++ >/dev/null 2>&1
}

missing=()
have_chromium || missing+=(chromium)
have_postgresql || missing+=(postgresql)
have_osmium_headers || missing+=(libosmium2-dev libprotozero-dev zlib1g-dev g++)
if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
else
    echo "install-test-services.sh: ${missing[*]} missing and this user cannot install them (not root, no sudo)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-test-services.sh: could not install ${missing[*]}" >&2
    exit 1
fi
have_chromium && have_postgresql && have_osmium_headers
