# What `cmake --install` puts where (GNU directory layout under the prefix):
#   lib/       liblpel, liblpel-mon, libsnet, libsnetmon-reader: static and
#              shared (cmake/Library.cmake), pkg-config files (lpel.pc,
#              lpel-mon.pc, snet.pc, snetmon-reader.pc, c4snet.pc) and the CMake package
#              (lib/cmake/LPEL: find_package(LPEL), targets LPEL::*)
#   include/   lpel/{lpel.h,mon.h}, snet/{snet.h,snet_boxlib.h},
#              snetmon/{mon_reader.h,mon_msg_id.h} - a module's public
#              header is its whole interface (mon_msg_id.h: the message-id
#              layout that mon.h and mon_reader.h both include), so nothing
#              else is installed - and c4snet/{C4SNet.h,memfun.h,bool.h},
#              what box sources written for the original S-Net runtime
#              include (c4snet.pc: their -I only)
#   bin/       snetmon, snetrun, lpel-demo, and the applications as snet-ant,
#              snet-des, snet-mc, snet-rt (their short names would clash
#              with other programs in a shared bin/, e.g. mc)
#   lib/snet-boxes/  the applications' box libraries (libNAME_boxes.so),
#              which the installed snetrun finds there, relative to its own
#              directory (SNETRUN_INSTALLED_BOX_DIR), for apps/NAME/NAME.snet
#   share/     man pages (man/man1, man3, man5) and bash completion
# The pkg-config files and the package find the prefix from where they are
# installed, so an installed tree can be moved (and cmake --install --prefix
# works with any prefix).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS lpel lpel_shared mon mon_shared snet snet_shared mon_reader mon_reader_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/runtime/lpel/lpel.h ${CMAKE_SOURCE_DIR}/monitor/mon.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lpel)
install(FILES ${CMAKE_SOURCE_DIR}/runtime/snet/snet.h
              ${CMAKE_SOURCE_DIR}/runtime/snet/lang/snet_boxlib.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/snet)
install(FILES ${CMAKE_SOURCE_DIR}/monitor/mon_reader.h ${CMAKE_SOURCE_DIR}/monitor/mon_msg_id.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/snetmon)
install(FILES ${CMAKE_SOURCE_DIR}/runtime/c4snet/C4SNet.h ${CMAKE_SOURCE_DIR}/runtime/c4snet/memfun.h
              ${CMAKE_SOURCE_DIR}/runtime/c4snet/bool.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/c4snet)

install(TARGETS snetmon snetrun lpel-demo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(app ant des mc rt)
  install(PROGRAMS $<TARGET_FILE:${app}> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME snet-${app})
  install(TARGETS ${app}_boxes LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/snet-boxes)
endforeach()
file(RELATIVE_PATH SNETRUN_INSTALLED_BOX_DIR "${CMAKE_INSTALL_FULL_BINDIR}"
     "${CMAKE_INSTALL_FULL_LIBDIR}/snet-boxes")
target_compile_definitions(snetrun PRIVATE
                           SNETRUN_INSTALLED_BOX_DIR="${SNETRUN_INSTALLED_BOX_DIR}")

# pkg-config: prefix relative to the .pc file's own directory.
file(RELATIVE_PATH PC_PREFIX_FROM_PCDIR "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
     "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" PC_PREFIX_FROM_PCDIR "${PC_PREFIX_FROM_PCDIR}")
set(PC_SNET_PRIVATE_LIBS "")
set(LPEL_CONFIG_SNET_STATIC_DEPS "")
if(SNET_MPI)
  # Static links of a libsnet built with MPI need the MPI libraries too.
  string(JOIN " " PC_SNET_PRIVATE_LIBS ${MPI_C_LIBRARIES})
  set(LPEL_CONFIG_SNET_STATIC_DEPS "${MPI_C_LIBRARIES}")
endif()
foreach(pc lpel lpel-mon snet snetmon-reader c4snet)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/pkgconfig/${pc}.pc.in
                 ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/LPELConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/LPELConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/LPEL
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/LPELConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/LPELConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/LPELConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/LPEL)
