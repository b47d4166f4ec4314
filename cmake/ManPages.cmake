# Man pages, written in scdoc (docs/man/*.scd*) and made at build time:
#   snetmon(1)        docs/man/snetmon.1.scd.in, its COMMANDS section filled
#                     from the built snetmon's own --help (snetmon_man.cmake)
#   lpel(3)           docs/man/lpel.3.scd
#   snetrun(1)        docs/man/snetrun.1.scd
#   snetmon-trace(5)  docs/man/snetmon-trace.5.scd.in followed by
#                     docs/LOGFORMAT.md itself, turned into scdoc by
#                     docs/man/md2scd.awk
# and the bash completion of snetmon (tools/snetmon/snetmon.bash), which asks
# snetmon for its subcommands and their options when it runs, so it needs no
# regenerating. Target `man`, built by default; installed by Install.cmake.
find_program(SCDOC scdoc REQUIRED)
find_program(AWK NAMES gawk mawk awk REQUIRED)
set(MAN_SRC ${CMAKE_SOURCE_DIR}/docs/man)
set(MAN_OUT ${CMAKE_BINARY_DIR}/man)
file(MAKE_DIRECTORY ${MAN_OUT})

add_custom_command(OUTPUT ${MAN_OUT}/snetmon.1.scd
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
          ${CMAKE_COMMAND} -DSNETMON=$<TARGET_FILE:snetmon> -DIN=${MAN_SRC}/snetmon.1.scd.in
          -DOUT=${MAN_OUT}/snetmon.1.scd -P ${CMAKE_SOURCE_DIR}/cmake/snetmon_man.cmake
  DEPENDS snetmon ${MAN_SRC}/snetmon.1.scd.in ${CMAKE_SOURCE_DIR}/cmake/snetmon_man.cmake
  COMMENT "snetmon(1): the COMMANDS section from snetmon's --help" VERBATIM)
add_custom_command(OUTPUT ${MAN_OUT}/snetmon-trace.5.scd
  COMMAND sh -c "{ cat \"$0\" && \"$1\" -f \"$2\" \"$3\" && printf '\\n# SEE ALSO\\n\\n*snetmon*(1), *lpel*(3), *babeltrace2*(1)\\n'; } > \"$4.tmp\" && mv \"$4.tmp\" \"$4\""
          ${MAN_SRC}/snetmon-trace.5.scd.in ${AWK} ${MAN_SRC}/md2scd.awk
          ${CMAKE_SOURCE_DIR}/docs/LOGFORMAT.md ${MAN_OUT}/snetmon-trace.5.scd
  DEPENDS ${MAN_SRC}/snetmon-trace.5.scd.in ${MAN_SRC}/md2scd.awk
          ${CMAKE_SOURCE_DIR}/docs/LOGFORMAT.md
  COMMENT "snetmon-trace(5): docs/LOGFORMAT.md in scdoc" VERBATIM)

set(MAN_PAGES "")
foreach(page snetmon.1 lpel.3 snetrun.1 snetmon-trace.5)
  if(page STREQUAL "lpel.3" OR page STREQUAL "snetrun.1")
    set(scd ${MAN_SRC}/${page}.scd)
  else()
    set(scd ${MAN_OUT}/${page}.scd)
  endif()
  add_custom_command(OUTPUT ${MAN_OUT}/${page}
    COMMAND sh -c "\"$0\" < \"$1\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" ${SCDOC} ${scd}
            ${MAN_OUT}/${page}
    DEPENDS ${scd}
    COMMENT "scdoc: ${page}" VERBATIM)
  list(APPEND MAN_PAGES ${MAN_OUT}/${page})
  string(REGEX REPLACE ".*\\." "" section ${page})
  install(FILES ${MAN_OUT}/${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(man ALL DEPENDS ${MAN_PAGES})

install(FILES ${CMAKE_SOURCE_DIR}/tools/snetmon/snetmon.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME snetmon)
