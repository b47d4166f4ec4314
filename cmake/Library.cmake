# snet_library(NAME OUTPUT_NAME [DEPENDS lib...] [PRIVATE_DEPENDS lib...]
#              SOURCES src...)
#
# Every installed library is built once, as position-independent objects
# (NAME_obj), and made into both kinds from them: NAME, the static archive
# the tree's programs and tests link, and NAME_shared, the shared object
# installed beside it (both named libOUTPUT_NAME). DEPENDS / PRIVATE_DEPENDS
# name other libraries of the project: the static one links their static
# archives, the shared one their shared objects, the objects see their
# headers. Set include directories, definitions and external libraries on
# NAME_obj: they reach both kinds and the programs linking them.
#
# Only what the public headers mark for export (LPEL_API, MON_API, ...) is
# visible outside a shared library: everything else is compiled with
# -fvisibility=hidden, so the exported symbols are the API, and
# tests/install checks that they match the installed headers. The container
# kit (kit/) is compiled into both kinds, hidden, so that an installed
# archive needs no library that is not installed.
#
# PIC costs on the hot paths are kept off: -fno-semantic-interposition lets
# the compiler inline and call a library's own functions directly, as in an
# executable, and the thread-local worker pointers use the initial-exec TLS
# model (no __tls_get_addr call per access; the libraries are linked at
# start-up, not dlopen'ed). The assembler context switch is PIC already and
# its symbols are hidden (no PLT).
function(snet_library name output)
  cmake_parse_arguments(L "" "" "DEPENDS;PRIVATE_DEPENDS;SOURCES" ${ARGN})
  add_library(${name}_obj OBJECT ${L_SOURCES})
  set_target_properties(${name}_obj PROPERTIES POSITION_INDEPENDENT_CODE ON
                        C_VISIBILITY_PRESET hidden)
  target_include_directories(${name}_obj PUBLIC
    $<TARGET_PROPERTY:kit_obj,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_options(${name}_obj PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-fno-semantic-interposition -ftls-model=initial-exec>)
  add_library(${name} STATIC)
  add_library(${name}_shared SHARED)
  target_link_libraries(${name} PUBLIC ${name}_obj)
  target_link_libraries(${name}_shared PUBLIC ${name}_obj)
  target_sources(${name} PRIVATE $<TARGET_OBJECTS:kit_obj>)
  target_sources(${name}_shared PRIVATE $<TARGET_OBJECTS:kit_obj>)
  # For the module table (cmake/Architecture.cmake): kit comes in as objects.
  set_property(TARGET ${name} PROPERTY SNET_ARCH_DEPS kit)
  foreach(dep ${L_DEPENDS})
    target_link_libraries(${name}_obj PUBLIC ${dep}_obj)
    target_link_libraries(${name} PUBLIC ${dep})
    target_link_libraries(${name}_shared PUBLIC ${dep}_shared)
  endforeach()
  foreach(dep ${L_PRIVATE_DEPENDS})
    target_link_libraries(${name}_obj PRIVATE ${dep}_obj)
    target_link_libraries(${name} PRIVATE ${dep})
    target_link_libraries(${name}_shared PRIVATE ${dep}_shared)
  endforeach()
  set_target_properties(${name} ${name}_shared PROPERTIES OUTPUT_NAME ${output})
  set_target_properties(${name}_shared PROPERTIES VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()
