#include <gtest/gtest.h>
TEST(Hello, Works) { EXPECT_EQ(1 + 1, 2); }
