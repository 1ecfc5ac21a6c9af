# An RTL file deleted or renamed would stop an existing build tree from configuring: verilate()
# includes the list of sources its last Verilator run wrote (V<model>.cmake, its _DEPS), and CMake
# refuses a dependency that no longer exists. Such a list is dropped here, before any verilate():
# that model is then verilated again, from the sources as they are.
file(GLOB_RECURSE mxu_verilated_lists "${CMAKE_BINARY_DIR}/V*.cmake")
list(FILTER mxu_verilated_lists INCLUDE REGEX "\\.dir/V[^/]*\\.cmake$")
foreach(list IN LISTS mxu_verilated_lists)
  file(STRINGS "${list}" deps REGEX "_DEPS ")
  string(REGEX MATCHALL "\"[^\"]+\"" paths "${deps}")
  foreach(path IN LISTS paths)
    string(REPLACE "\"" "" path "${path}")
    # Only absolute paths: the RTL's are; a model's own sources may be listed relative to it.
    if(IS_ABSOLUTE "${path}" AND NOT EXISTS "${path}")
      message(STATUS "verilated sources moved: ${list} dropped (${path} is gone)")
      file(REMOVE "${list}")
      break()
    endif()
  endforeach()
endforeach()
