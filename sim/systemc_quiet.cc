// Compiled into every binary that links SystemC (the top-level CMakeLists.txt adds it to the
// SystemC target's interface sources): SystemC prints its copyright banner on stdout when a
// process first elaborates, in the middle of a command's or a test's output. Setting its own
// switch, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE, during static initialization, before libsystemc's
// main() calls sc_main, keeps every binary quiet (a value already in the environment is kept).
#include <cstdlib>

namespace {

const bool kSystemcQuiet = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

}  // namespace
