# The driver as a library: install rules, the exported CMake package (find_package(mxu)) and the
# pkg-config file (mxu.pc). Included last by the top-level CMakeLists.txt, after every target
# exists; it only adds to them. Every installed path is relative to the prefix, so
# `cmake --install build --prefix DIR` works for any DIR.
include(CMakePackageConfigHelpers)

set(MXU_PACKAGE_VERSION ${PROJECT_VERSION})  # project(... VERSION), as the Python wheel's
set(MXU_INSTALL_INCLUDEDIR include/mxu)
set(MXU_INSTALL_LIBDIR lib)
set(MXU_INSTALL_CMAKEDIR lib/cmake/mxu)

# mxu::<name> for each installed library. A consumer links mxu::backends (the device factory
# and the RTL device, whose platform, verilated model and Verilator runtime come with it),
# mxu::driver and mxu::golden.
set(MXU_EXPORTED_LIBRARIES
  mxu_common mxu_golden mxu_driver mxu_model mxu_cross mxu_backends mxu_wave_layouts mxu_platform mxu_host_memory
  mxu_timeline mxu_model_stack)
# A hier=1 default device (cmake/devices.cmake) links its array column's own verilated model, a
# library Verilator names Vmxu_pe_col_N.
get_target_property(platform_libraries mxu_platform LINK_LIBRARIES)
list(FILTER platform_libraries INCLUDE REGEX "^Vmxu_pe_col_[0-9A-Za-z]+$")
list(APPEND MXU_EXPORTED_LIBRARIES ${platform_libraries})
foreach(target ${MXU_EXPORTED_LIBRARIES})
  string(REGEX REPLACE "^mxu_" "" export_name ${target})
  # Position-independent code, so that the static libraries link into shared objects too (the
  # Python module, a user's own shared library).
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name}
                                             POSITION_INDEPENDENT_CODE ON)
  # The targets' include directories name the source and build trees (the repository root,
  # Verilator's generated model): those hold in the build tree only. The installed package has
  # include/mxu instead (install(TARGETS ... INCLUDES) below); installed headers never include
  # Verilator's.
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
    get_target_property(dirs ${target} ${property})
    if(dirs)
      set(wrapped "")
      foreach(dir ${dirs})
        list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
      endforeach()
      set_target_properties(${target} PROPERTIES ${property} "${wrapped}")
    endif()
  endforeach()
endforeach()

install(TARGETS ${MXU_EXPORTED_LIBRARIES} EXPORT mxuTargets
  ARCHIVE DESTINATION ${MXU_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${MXU_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${MXU_INSTALL_INCLUDEDIR})
install(EXPORT mxuTargets NAMESPACE mxu:: DESTINATION ${MXU_INSTALL_CMAKEDIR})

# Headers keep the repository's paths: #include "driver/gemm.h" with -I<prefix>/include/mxu.
foreach(dir common golden driver backends)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION ${MXU_INSTALL_INCLUDEDIR}/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()

# The mxu tool: one executable per device of MXU_DEVICES, side by side (--device runs them).
foreach(id IN LISTS MXU_DEVICE_IDS)
  install(TARGETS ${MXU_DEVICE_${id}_binary} RUNTIME DESTINATION bin)
endforeach()

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/mxuConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/mxuConfig.cmake INSTALL_DESTINATION ${MXU_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/mxuConfigVersion.cmake
  VERSION ${MXU_PACKAGE_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/mxuConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/mxuConfigVersion.cmake
        DESTINATION ${MXU_INSTALL_CMAKEDIR})

# pkg-config: prefix=${pcfiledir}/../.. keeps the file relocatable.
configure_file(${CMAKE_SOURCE_DIR}/cmake/mxu.pc.in ${CMAKE_BINARY_DIR}/cmake/mxu.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/mxu.pc DESTINATION ${MXU_INSTALL_LIBDIR}/pkgconfig)
