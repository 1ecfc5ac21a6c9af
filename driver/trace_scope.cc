#include "driver/trace_scope.h"

#include <cctype>
#include <stdexcept>

namespace mxu::driver {

TraceScope ParseTraceScope(const std::string& text) {
  TraceScope scope;
  if (text == "layouts") return scope;
  if (text == "all") {
    scope.kind = TraceScope::Kind::kAll;
    return scope;
  }
  scope.kind = TraceScope::Kind::kList;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = item.find(':');
    const std::string hier = item.substr(0, colon);
    int depth = kTraceScopeAllLevels;
    if (colon != std::string::npos) {
      const std::string digits = item.substr(colon + 1);
      if (digits.empty() || digits.size() > 3 ||
          digits.find_first_not_of("0123456789") != std::string::npos || std::stoi(digits) < 1) {
        throw std::invalid_argument("'" + item + "': the depth after ':' must be 1-999");
      }
      depth = std::stoi(digits);
    }
    bool name_ok = !hier.empty() && hier.front() != '.' && hier.back() != '.' &&
                   hier.find("..") == std::string::npos;
    for (char c : hier) {
      name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                            c == '[' || c == ']');
    }
    if (!name_ok) {
      throw std::invalid_argument("'" + item +
                                  "': expected layouts, all, or HIER[:DEPTH],... with HIER a "
                                  "dotted hierarchical name such as mxu_top.mxu_top.u_dma");
    }
    scope.scopes.emplace_back(depth, hier);
    if (comma == std::string::npos) return scope;
    start = comma + 1;
  }
}

}  // namespace mxu::driver
