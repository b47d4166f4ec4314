#!/bin/sh
# mpi_run.sh NP PROGRAM ARGS... - an MPI job of NP ranks on this machine
# only: more ranks than cores allowed (--oversubscribe), ranks talk through
# shared memory (no network), mpirun's own channel on loopback, root allowed
# when the tests run as root, and the whole job bounded by a timeout
# (MPI_TIMEOUT seconds, default 120) so that a hang fails the test.
np=$1
shift
mpiexec=${MPIEXEC:-mpirun}
flags="--oversubscribe"
if "$mpiexec" --version 2>/dev/null | grep -q -e "Open MPI" -e OpenRTE -e open-mpi.org; then
    flags="$flags --mca btl self,vader --mca oob_tcp_if_include lo --mca btl_vader_single_copy_mechanism none"
    [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
fi
exec timeout -k 10 "${MPI_TIMEOUT:-120}" "$mpiexec" $flags -np "$np" "$@"
