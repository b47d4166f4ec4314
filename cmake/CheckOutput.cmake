# CheckOutput.cmake - run a command-line test and check both its exit status
# and its output, for snet_cli_check (Testing.cmake).
#
#   cmake -DEXPECT_RC=N -DMATCH_FILE=FILE -P CheckOutput.cmake -- COMMAND [ARG...]
#
# Why: CTest's PASS_REGULAR_EXPRESSION replaces the exit status as the test's
# verdict, so a command that prints what is expected and then crashes, or
# ends with a sanitizer report, passes. Here the test passes only when the
# command exits with EXPECT_RC and its output (standard output and standard
# error merged in order, then a last line "rc=N" with the exit status, as the
# bridge's tests always wrote it) matches the CMake regular expression in
# MATCH_FILE (none: the exit status alone decides). The command's arguments
# pass through a CMake list: semicolons are kept (escaped), an argument with
# an unbalanced [ or ] would be joined to the next.
set(cmd "")
set(seen_dashes FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(seen_dashes)
    string(REPLACE ";" "\\;" arg "${CMAKE_ARGV${i}}")
    list(APPEND cmd "${arg}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen_dashes TRUE)
  endif()
endforeach()
if(NOT cmd)
  message(FATAL_ERROR "CheckOutput.cmake: no command after --")
endif()
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 0)
endif()

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(APPEND out "rc=${rc}\n")
message("${out}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
endif()
if(MATCH_FILE)
  file(READ "${MATCH_FILE}" match)
  if(NOT out MATCHES "${match}")
    message(FATAL_ERROR "the output does not match: ${match}")
  endif()
endif()
