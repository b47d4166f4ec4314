# Testing.cmake - how the project's tests are registered with CTest: Check
# programs, and command-line tests that check their exit status.

# snet_add_check_test(NAME SOURCES a.c b.c LIBS lib... [LABELS l...] [TIMEOUT s])
# Builds a Check test program and registers it with CTest. Sanitizer
# options make every finding fatal so a sanitizer build fails loudly.
function(snet_add_check_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS;ENV" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CHECK Threads::Threads)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS "${T_LABELS}"
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1;TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1;CK_DEFAULT_TIMEOUT=120;${T_ENV}")
endfunction()

# snet_cli_check(VAR NAME EXPECT_RC REGEX)
# Sets VAR to a launcher to put in front of a command-line test's command,
#   snet_cli_check(check my_test 0 "sum [0-9]+")
#   add_test(NAME my_test COMMAND ${check} my-program args...)
# which passes only when the command exits with EXPECT_RC and, unless REGEX
# is "", its output (standard output and error merged, then a line "rc=N")
# matches the CMake regular expression REGEX (cmake/CheckOutput.cmake).
# Never PASS_REGULAR_EXPRESSION, which makes the output alone the verdict:
# a crash after the expected output must fail the test. (A function taking
# the command would split a quoted "sh -c" script at its semicolons: CMake
# lists; so the command goes to add_test itself.)
function(snet_cli_check var name expect_rc regex)
  set(match_file "")
  if(NOT regex STREQUAL "")
    set(match_file ${CMAKE_CURRENT_BINARY_DIR}/cli_match/${name}.regex)
    file(WRITE ${match_file} "${regex}")
  endif()
  set(${var} ${CMAKE_COMMAND} -DEXPECT_RC=${expect_rc} -DMATCH_FILE=${match_file}
      -P ${PROJECT_SOURCE_DIR}/cmake/CheckOutput.cmake -- PARENT_SCOPE)
endfunction()
