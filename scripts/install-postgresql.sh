#!/usr/bin/env bash
# Makes sure a PostgreSQL server's binaries (initdb, postgres) are present, so that the tests
# of the PostgreSQL results store (store/postgres, and ktune --db postgres://) run against a
# real server, which they start themselves in a temporary folder: installs Debian's
# postgresql with apt-get as root when they are missing; otherwise says what to install.
# Nothing is started here, and the tests skip without a server.
set -euo pipefail
if { command -v initdb && command -v postgres; } >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing PostgreSQL (for the tests of the PostgreSQL results store)..." >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
	exit 0
fi
echo "No PostgreSQL server found. Install one, e.g.: sudo apt-get install postgresql; or set KTUNE_TEST_POSTGRES=postgres://USER@HOST/DB to a server where USER may create databases" >&2
exit 1
