#!/usr/bin/env bash
# Install the Debian packages this project builds and tests with, only those missing.
# Everything that needs the packages (README commands, .ci/run) calls this script first,
# so a fresh machine needs nothing installed by hand.
#
# Packages and why:
#   build-essential cmake pkg-config   compiler and build system
#   libhwloc-dev                       worker count and core pinning (runtime/lpel)
#   libatomic-ops-dev                  lock-free mailbox (runtime/lpel)
#   libpcre2-dev                       task-name filters (monitor, viz)
#   libgraphviz-dev                    network and critical-path graphs (viz)
#   libcairo2-dev                      utilisation images, PNG and SVG (viz)
#   check                              unit tests
#   libjansson-dev                     JSON input: WfCommons instances, JSONL workflow events, run.json
#   babeltrace2                        an independent CTF reader the monitor tests check our traces with
#   clang libclang-rt-dev              the clang build variant; libFuzzer and clang's sanitizer
#                                      runtimes for the fuzz targets (tests/fuzz, scripts/fuzz.sh)
#   libopenmpi-dev openmpi-bin         S-Net networks across MPI ranks (runtime/snet/distrib, tests label mpi)
#   bison flex                         the S-Net language grammar and lexer (runtime/snet/lang): one
#                                      readable grammar file instead of a hand-written parser
#   libxml2-dev                        S-Net records in the original runtime's XML format and the
#                                      <metadata> blocks of .snet files (a real XML parser: entities,
#                                      encodings, errors with line numbers)
#   scdoc                              the man pages (docs/man/*.scd -> snetmon(1), lpel(3),
#                                      snetmon-trace(5)), generated at build time from one
#                                      small, readable source format
#   bash-completion                    the completion of snetmon is tested against it
#   libopen-trace-format2-dev otf2-tools  `snetmon export --otf2` writes OTF2 archives (Vampir,
#                                      Score-P) with the OTF2 library; otf2-print reads them back
#                                      in the test that compares its counts with `snetmon dump`
#   chromium                           the `browser` test: the HTML report of `snetmon report`
#                                      loaded in headless Chromium (renders, no console errors)
#   libsqlite3-dev                     the experiment repository's default database, one file, no
#                                      server (snetmon store / runs / compare, docs/REPOSITORY.md)
#   libpq-dev                          the same repository in PostgreSQL, for a team (--db postgresql://)
#   postgresql                         a real server for the repository's PostgreSQL test, which
#                                      starts its own in a temporary directory (tests/repo/pg_test.sh)
#   libmetis-dev                       graph partitioning for `snetmon advise` (advice/advice.c,
#                                      the one library linking it): balances tasks over workers
#   libffi-dev                         C4SNet boxes (runtime/c4snet) are called by their declared
#                                      signature, of any arity, without compiling a wrapper per box
#   valgrind                           instruction counts per record for the benchmarks (callgrind,
#                                      bench/snet/ir-per-record.sh): exact even on a loaded machine
#   golang-go libboost-fiber-dev       the peers of bench/peers/run.sh: the ring and pipe shapes in Go
#                                      (goroutines, channels) and C++ Boost.Fiber, beside LPEL
#   liblttng-ust-dev lttng-tools       the monitor's benchmark peer (bench/monitor/cost.sh, -DMON_LTTNG=ON):
#                                      the same events recorded with LTTng-UST, in a session the
#                                      benchmark creates and destroys
set -euo pipefail

packages=(build-essential cmake pkg-config libhwloc-dev libatomic-ops-dev libpcre2-dev
          libgraphviz-dev libcairo2-dev libjansson-dev check babeltrace2 clang libclang-rt-dev
          libopenmpi-dev openmpi-bin bison flex libxml2-dev scdoc bash-completion
          libopen-trace-format2-dev otf2-tools chromium libsqlite3-dev libpq-dev postgresql libmetis-dev
          libffi-dev valgrind golang-go libboost-fiber-dev liblttng-ust-dev lttng-tools)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "deps.sh: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps.sh: done" >&2
