# The module table of docs/ARCHITECTURE.md, as the build sees it: for each
# library target of the project, the project libraries it links directly,
# written to ${CMAKE_BINARY_DIR}/architecture_deps.txt at configure time
# (one line "target: dep dep ..."). The architecture_table test
# (tests/docs) compares it with the table in docs/ARCHITECTURE.md, so the
# picture and the build cannot drift apart.
#
# A library made by snet_library (cmake/Library.cmake) has its links on
# NAME_obj and NAME_shared beside NAME: the three are one module here, and
# the kit it carries as objects (SNET_ARCH_DEPS) counts as a link.
# The modules: the libraries of these directories, and the programs
# snetmon and snetrun (tests, benchmarks and the applications' own
# libraries are users, not modules).
set(SNET_ARCH_DIRS kit prog_opt runtime/lpel monitor runtime/snet runtime/c4snet runtime/snet/lang
    workflow-bridge whatif advice viz live export repo apps/common tools/snetmon tools/snetrun)

function(snet_architecture_deps out)
  set(libs "")
  foreach(dir ${SNET_ARCH_DIRS})
    get_property(targets DIRECTORY ${CMAKE_SOURCE_DIR}/${dir} PROPERTY BUILDSYSTEM_TARGETS)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t ${targets})
      get_target_property(type ${t} TYPE)
      if((type MATCHES "^(STATIC|SHARED|OBJECT)_LIBRARY$" OR t MATCHES "^snet(mon|run)$")
         AND NOT t MATCHES "_(obj|shared)$")
        list(APPEND libs ${t})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES libs)
  list(SORT libs)
  set(text "")
  foreach(t ${libs})
    set(deps "")
    foreach(part ${t} ${t}_obj)
      if(TARGET ${part})
        get_target_property(links ${part} LINK_LIBRARIES)
        get_target_property(embedded ${part} SNET_ARCH_DEPS)
        if(embedded)
          list(APPEND links ${embedded})
        endif()
        if(links)
          foreach(l ${links})
            string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" l "${l}")
            string(REGEX REPLACE "_(obj|shared)$" "" l "${l}")
            if(l IN_LIST libs AND NOT l STREQUAL t)
              list(APPEND deps ${l})
            endif()
          endforeach()
        endif()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES deps)
    list(SORT deps)
    string(JOIN " " deps ${deps})
    string(APPEND text "${t}: ${deps}\n")
  endforeach()
  file(WRITE ${out} "${text}")
endfunction()
