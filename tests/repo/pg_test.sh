#!/bin/sh
# The experiment repository on a real PostgreSQL server, which this test
# starts itself: initdb into a temporary directory, a server listening on
# 127.0.0.1 only (a free port) and on a socket in that directory, stopped
# and removed at the end whatever happens. Then the same command-line test
# as for SQLite (cli_repo_test.sh) runs against it, and a repository whose
# schema version is newer than snetmon's is refused.
#
# usage: pg_test.sh SNETMON MC WORKDIR
# Skipped (exit 77) with a message when the Debian postgresql package is
# not installed (scripts/deps.sh installs it). As root, the server runs as
# the 'postgres' user the package creates (PostgreSQL refuses to run as
# root).
set -u
snetmon=$1 mc=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
    echo "SKIP: PostgreSQL server not installed (Debian package postgresql; scripts/deps.sh installs it)"
    exit 77
fi

as_server=""
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "FAIL: running as root and no 'postgres' user"; exit 1; }
    as_server="runuser -u postgres --"
fi

pgdir=$(mktemp -d /tmp/snetmon-pg-XXXXXX) || exit 1
[ -n "$as_server" ] && chown postgres "$pgdir"
stop() {
    timeout 30 $as_server "$bin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1
    rm -rf "$pgdir"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

timeout 120 $as_server "$bin/initdb" -D "$pgdir/data" -A trust -U postgres --no-sync \
    >"$pgdir/initdb.log" 2>&1 || { cat "$pgdir/initdb.log"; echo "FAIL: initdb"; exit 1; }

# a free port: try a few, the server says when one is taken
started=""
for try in 1 2 3 4 5 6 7 8; do
    port=$((20000 + ($$ * 7 + try * 7919) % 40000))
    if timeout 60 $as_server "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 30 \
        -o "-h 127.0.0.1 -p $port -k $pgdir -c fsync=off" start >/dev/null 2>&1; then
        started=$port
        break
    fi
done
[ -n "$started" ] || { cat "$pgdir/server.log"; echo "FAIL: the server did not start"; exit 1; }

url="postgresql://postgres@127.0.0.1:$started/snetmon_test"
timeout 30 "$bin/createdb" -h 127.0.0.1 -p "$started" -U postgres snetmon_test \
    || { echo "FAIL: createdb"; exit 1; }

timeout 600 sh "$here/cli_repo_test.sh" "$snetmon" "$mc" "$work" "$url" || exit 1

# a newer schema than this snetmon knows: refused with one line
psql_cmd() { timeout 30 "$bin/psql" -q -h 127.0.0.1 -p "$started" -U postgres -d snetmon_test -c "$1"; }
psql_cmd "UPDATE schema_version SET version = 99" || { echo "FAIL: psql"; exit 1; }
out=$("$snetmon" runs --db "$url" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'has schema version 99, newer than this snetmon knows' \
    || { echo "FAIL: newer schema: rc=$rc $out"; exit 1; }
# the password never shows in messages
out=$("$snetmon" runs --db "postgresql://postgres:secret@127.0.0.1:$started/snetmon_test" 2>&1)
echo "$out" | grep -q secret && { echo "FAIL: password in message: $out"; exit 1; }
echo "PASS (PostgreSQL on 127.0.0.1:$started)"
