# snetmon_man.cmake - run at build time (cmake -P) by ManPages.cmake: fills
# the COMMANDS section of snetmon(1) from the built snetmon itself, one
# section per subcommand of `snetmon --help`, each with the subcommand's
# own --help. So a subcommand added as cmd_NAME.c is in the man page with
# its options as soon as it is built.
#   -DSNETMON=path -DIN=docs/man/snetmon.1.scd.in -DOUT=snetmon.1.scd
execute_process(COMMAND ${SNETMON} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SNETMON} --help exited ${rc}")
endif()
string(REGEX REPLACE ".*\ncommands:\n" "" listing "${top}")
string(REGEX REPLACE "\n\n.*" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(sections "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^  ([a-z][a-z0-9-]*) +(.*)$")
    continue()
  endif()
  set(cmd "${CMAKE_MATCH_1}")
  set(summary "${CMAKE_MATCH_2}")
  execute_process(COMMAND ${SNETMON} ${cmd} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SNETMON} ${cmd} --help exited ${rc}")
  endif()
  string(REGEX REPLACE "\n+$" "" help "${help}")
  # scdoc: a backslash is an escape even where the text is literal.
  string(REPLACE "\\" "\\\\" help "${help}")
  string(APPEND sections "## ${cmd}\n\n${summary}.\n\n```\n${help}\n```\n\n")
endforeach()
if(sections STREQUAL "")
  message(FATAL_ERROR "no subcommands found in `${SNETMON} --help`")
endif()
string(REGEX REPLACE "\n+$" "" sections "${sections}")
file(READ ${IN} page)
string(REPLACE "@COMMANDS@" "${sections}" page "${page}")
file(WRITE ${OUT}.new "${page}")
file(RENAME ${OUT}.new ${OUT})
