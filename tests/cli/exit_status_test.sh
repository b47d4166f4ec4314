#!/bin/sh
# exit_status_test.sh CTEST BUILD_DIR - every test of the build decides by
# its exit status (issue 24): none has PASS_REGULAR_EXPRESSION, with which
# CTest would take the output for the verdict and pass a command that
# printed what was expected and then crashed (snet_cli_check in
# cmake/Testing.cmake checks both); and none has WILL_FAIL, which passes
# any failure, a crash too, where an exit status was meant (only the test
# that shows snet_cli_check failing a crash, cli_check_output_fails_a_crash,
# may). The test list comes from CTest itself, so a test added anywhere is
# checked unasked.
set -u
ctest=$1 build=$2
list=$(cd "$build" && "$ctest" --show-only=json-v1) || { echo "FAIL: $ctest --show-only failed"; exit 1; }
echo "$list" | grep -q '"kind" : "ctestInfo"' ||
    { echo "FAIL: $ctest --show-only=json-v1 gave no test list"; exit 1; }
tests=$(cd "$build" && "$ctest" -N | sed -n 's/^Total Tests: //p')
bad=$(echo "$list" | awk '
    /"name" : "/ && !in_props { sub(/.*"name" : "/, ""); sub(/".*/, ""); test = $0 }
    /"properties"/ { in_props = 1 }
    in_props && /"name" : "PASS_REGULAR_EXPRESSION"/ { print test }
    in_props && /"name" : "WILL_FAIL"/ && test != "cli_check_output_fails_a_crash" { print test }
    /^      \]/ { in_props = 0 }')
if [ -n "$bad" ]; then
    echo "FAIL: tests that pass on their output, or on any failure, whatever their exit status:" $bad
    exit 1
fi
echo "ok: $tests tests, none decides by PASS_REGULAR_EXPRESSION or WILL_FAIL"
