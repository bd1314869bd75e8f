#include "services/image/download_cache.h"

#include "gtest/gtest.h"

namespace assisted::image {
namespace {

std::shared_ptr<const Download> Named(const std::string& name) {
  auto download = std::make_shared<Download>();
  download->filename = name;
  return download;
}

TEST(DownloadCache, FindsWhatWasInsertedAndDropsTheLeastRecentlyUsed) {
  DownloadCache cache(2);
  EXPECT_EQ(cache.Find("a"), nullptr);
  cache.Insert("a", Named("a"));
  cache.Insert("b", Named("b"));
  ASSERT_NE(cache.Find("a"), nullptr);  // "a" is now the most recently used
  cache.Insert("c", Named("c"));        // so "b" goes
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_EQ(cache.Find("a")->filename, "a");
  EXPECT_EQ(cache.Find("c")->filename, "c");
}

TEST(DownloadCache, ReplacesAnEntryAndKeepsNothingWithoutCapacity) {
  DownloadCache cache(2);
  cache.Insert("a", Named("old"));
  cache.Insert("a", Named("new"));
  EXPECT_EQ(cache.Find("a")->filename, "new");
  DownloadCache none(0);
  none.Insert("a", Named("a"));
  EXPECT_EQ(none.Find("a"), nullptr);
}

}  // namespace
}  // namespace assisted::image
