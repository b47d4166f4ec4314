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
