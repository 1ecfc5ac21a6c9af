// The entry point of one extension of the `mxu` package: compiled once per device of the build
// (python/CMakeLists.txt) with MXU_PYTHON_MODULE its name, _mxu for the default device and
// _mxu_<id> for the others. Everything else is the bindings' (python/mxu_module.cc), compiled once
// and linked into every extension with its device's backends library.
#include <pybind11/pybind11.h>

#include "python/arguments.h"

#ifndef MXU_PYTHON_MODULE
#error "MXU_PYTHON_MODULE (the extension's module name, _mxu or _mxu_<id>) is not defined"
#endif

PYBIND11_MODULE(MXU_PYTHON_MODULE, m) { mxu::python::RegisterModule(m); }
