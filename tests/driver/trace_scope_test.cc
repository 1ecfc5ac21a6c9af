// --trace-scope's text: layouts, all, or scopes with depths; malformed ones refused.
#include "driver/trace_scope.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace mxu::driver {
namespace {

TEST(TraceScope, ParsesTheThreeForms) {
  EXPECT_EQ(ParseTraceScope("layouts").kind, TraceScope::Kind::kLayouts);
  EXPECT_EQ(ParseTraceScope("all").kind, TraceScope::Kind::kAll);
  const TraceScope list = ParseTraceScope("mxu_top.mxu_top.u_dma:2,mxu_top.mxu_top.g_x[3].u_y");
  ASSERT_EQ(list.kind, TraceScope::Kind::kList);
  ASSERT_EQ(list.scopes.size(), 2u);
  EXPECT_EQ(list.scopes[0].first, 2);
  EXPECT_EQ(list.scopes[0].second, "mxu_top.mxu_top.u_dma");
  EXPECT_EQ(list.scopes[1].first, kTraceScopeAllLevels);
  EXPECT_EQ(list.scopes[1].second, "mxu_top.mxu_top.g_x[3].u_y");
}

TEST(TraceScope, RefusesMalformedScopes) {
  for (const char* text :
       {"", ",", "a,", ".a", "a.", "a..b", "a:0", "a:", "a:1000", "a:x", "a b", "a;b", "a:-1"}) {
    EXPECT_THROW(ParseTraceScope(text), std::invalid_argument) << text;
  }
}

}  // namespace
}  // namespace mxu::driver
