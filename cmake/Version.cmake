# One version for every program's --version: the project version and the
# git revision the build was configured from (`git describe`; "unknown"
# outside a git checkout or without git), in one generated header,
# snet_version.h (target snet_version). Configure-time, so rebuilding after
# a new commit without reconfiguring keeps the older revision.
find_package(Git QUIET)
set(SNET_GIT_REVISION "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  RESULT_VARIABLE git_rc OUTPUT_VARIABLE git_out ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(git_rc EQUAL 0 AND git_out)
    set(SNET_GIT_REVISION "${git_out}")
  endif()
endif()
message(STATUS "Version ${PROJECT_VERSION}, git revision ${SNET_GIT_REVISION}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/snet_version.h.in
               ${CMAKE_BINARY_DIR}/generated/snet_version.h @ONLY)
add_library(snet_version INTERFACE)
target_include_directories(snet_version INTERFACE ${CMAKE_BINARY_DIR}/generated)
