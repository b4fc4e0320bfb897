# What `cmake --install BUILD [--prefix DIR]` puts in place, in GNUInstallDirs' folders:
#   bin/weft                                    the command
#   LIBDIR/libweft.so.X.Y.Z, .so.X, .so         the shared library (SONAME libweft.so.X)
#   LIBDIR/libweft.a                            the static one: runtime and compiler
#   include/weft.h
#   LIBDIR/pkgconfig/weft.pc                    pkg-config --cflags --libs [--static] weft
#   LIBDIR/cmake/weft/                          find_package(weft): the target weft::weft
#   LIBDIR/libweft_icd.so, etc/OpenCL/vendors/weft.icd    the OpenCL ICD (see below)
# Nothing installed refers to the build tree: clang-19 is found by the path configured here
# (WEFT_CLANG_PATH), the policies' bitcode is compiled into the library, and the installed files
# carry no RPATH (libLLVM and libffi are in the system's library folders).
include(CMakePackageConfigHelpers)

install(TARGETS weft RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS weft_shared EXPORT weftTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS weft_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/weft.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# weft.pc holds absolute paths under the prefix, which `cmake --install --prefix` may still
# change: configured now with @prefix@ left in, which the install step fills in.
foreach(dir libdir includedir)
  string(TOUPPER ${dir} DIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${DIR}}")
    set(pc_${dir} "${CMAKE_INSTALL_${DIR}}")
  else()
    set(pc_${dir} "\${prefix}/${CMAKE_INSTALL_${DIR}}")
  endif()
endforeach()
set(prefix @prefix@)
configure_file(cmake/weft.pc.in ${PROJECT_BINARY_DIR}/weft.pc.in @ONLY)
unset(prefix)
install(CODE "set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/weft.pc.in\" \"${PROJECT_BINARY_DIR}/weft.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/weft.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CMake package: weftTargets.cmake (relocatable: paths relative to where it lies), the
# config file that includes it, and the version file (compatible within a major version, as
# the SONAME is).
set(weft_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
install(EXPORT weftTargets NAMESPACE weft:: DESTINATION ${weft_cmake_dir})
configure_package_config_file(cmake/weftConfig.cmake.in ${PROJECT_BINARY_DIR}/weftConfig.cmake
                              INSTALL_DESTINATION ${weft_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/weftConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/weftConfig.cmake ${PROJECT_BINARY_DIR}/weftConfigVersion.cmake
        DESTINATION ${weft_cmake_dir})

# ---- the OpenCL ICD (issue 21, part 1): its library goes to LIBDIR and its .icd file, which
# names the installed library by its absolute path for the loader, to WEFT_ICD_VENDORS_DIR:
# etc/OpenCL/vendors under the prefix unless told otherwise. Debian's loader reads
# /etc/OpenCL/vendors (-DWEFT_ICD_VENDORS_DIR=/etc/OpenCL/vendors installs there), or the folder
# that OCL_ICD_VENDORS names. ----
if(TARGET weft_icd)
  set(WEFT_ICD_VENDORS_DIR ${CMAKE_INSTALL_SYSCONFDIR}/OpenCL/vendors CACHE STRING
      "where cmake --install puts weft.icd (a relative path is under the prefix)")
  install(TARGETS weft_icd LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(icd_libdir "${CMAKE_INSTALL_LIBDIR}")
  else()
    set(icd_libdir "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  # the prefix is known at install time only (--prefix)
  install(CODE "file(WRITE \"${PROJECT_BINARY_DIR}/icd/weft.icd.installed\"
    \"${icd_libdir}/$<TARGET_FILE_NAME:weft_icd>\\n\")")
  install(FILES ${PROJECT_BINARY_DIR}/icd/weft.icd.installed DESTINATION ${WEFT_ICD_VENDORS_DIR}
          RENAME weft.icd)
endif()
