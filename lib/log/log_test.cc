#include "lib/log/log.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::log {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Keeps formatted lines so tests can read what a Logger produced.
class CaptureSink final : public Sink {
 public:
  explicit CaptureSink(Level min_level = Level::kDebug) : min_level_(min_level) {}
  bool Enabled(Level level) const override { return level >= min_level_; }
  void Write(const Record& record) override { lines.push_back(FormatText(record)); }
  std::vector<std::string> lines;

 private:
  Level min_level_;
};

TEST(Logger, WritesComponentMessageAndFields) {
  auto sink = std::make_shared<CaptureSink>();
  Logger log(sink, "inventory");
  log.Info("started", {{"port", 9091}, {"listen", "0.0.0.0:9091"}});
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_THAT(sink->lines[0], HasSubstr(" INFO inventory: started port=9091 listen=0.0.0.0:9091"));
}

TEST(Logger, ChildAndWithAddComponentAndContext) {
  auto sink = std::make_shared<CaptureSink>();
  Logger log = Logger(sink, "orchestrator").Child("monitor").With("cluster_id", "c1");
  log.Warning("timed out", {{"host_id", "h1"}});
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_THAT(sink->lines[0],
              HasSubstr("WARNING orchestrator.monitor: timed out cluster_id=c1 host_id=h1"));
}

TEST(Logger, DropsRecordsBelowTheSinkLevel) {
  auto sink = std::make_shared<CaptureSink>(Level::kWarning);
  Logger log(sink, "x");
  log.Debug("a");
  log.Info("b");
  log.Error("c");
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_THAT(sink->lines[0], HasSubstr("ERROR x: c"));
}

TEST(Logger, DiscardWritesNothingAndDoesNotCrash) {
  Logger::Discard().Child("y").With("k", 1).Error("nothing");
}

TEST(FormatText, QuotesValuesThatWouldBeAmbiguous) {
  const std::vector<Field> context;
  const Record record{absl::UnixEpoch(),
                      Level::kInfo,
                      "c",
                      "m",
                      context,
                      {{"a", "two words"}, {"b", "x=y"}, {"c", ""}, {"d", "line\nbreak"}}};
  EXPECT_EQ(FormatText(record),
            "1970-01-01T00:00:00.000Z INFO c: m a=\"two words\" b=\"x=y\" c=\"\" "
            "d=\"line\\nbreak\"");
}

TEST(FormatJson, IsOneParsableObjectEvenWithInvalidUtf8) {
  const std::vector<Field> context = {{"cluster_id", "c1"}};
  const Record record{absl::UnixEpoch(), Level::kError, "image",
                      "bad \xff byte",   context,       {{"n", 3}}};
  const nlohmann::json json = nlohmann::json::parse(FormatJson(record));
  EXPECT_EQ(json["level"], "error");
  EXPECT_EQ(json["component"], "image");
  EXPECT_EQ(json["cluster_id"], "c1");
  EXPECT_EQ(json["n"], 3);
}

TEST(FormatJson, KeepsNumbersNumbersAndNumericLookingTextText) {
  const std::vector<Field> context;
  const Record record{absl::UnixEpoch(),
                      Level::kInfo,
                      "gateway",
                      "done",
                      context,
                      {{"status", 200},
                       {"seconds", 0.25},
                       {"bytes", uint64_t{1} << 40},
                       {"zip", "007"},
                       {"nan", std::nan("")}}};
  const nlohmann::json json = nlohmann::json::parse(FormatJson(record));
  EXPECT_EQ(json["status"], 200);
  EXPECT_EQ(json["seconds"], 0.25);
  EXPECT_EQ(json["bytes"], uint64_t{1} << 40);
  EXPECT_EQ(json["zip"], "007");
  EXPECT_TRUE(json["nan"].is_string());
}

TEST(RequestIdScope, EveryRecordInsideCarriesTheInnermostId) {
  auto sink = std::make_shared<CaptureSink>();
  Logger log(sink, "gateway");
  log.Info("before");
  {
    RequestIdScope outer("r-outer");
    log.Info("outer");
    {
      RequestIdScope inner("r-inner");
      EXPECT_EQ(CurrentRequestId(), "r-inner");
      log.Info("inner");
    }
    log.Info("outer again");
  }
  log.Info("after");
  EXPECT_EQ(CurrentRequestId(), "");
  EXPECT_THAT(sink->lines, ElementsAre(HasSubstr("before"), HasSubstr("outer request_id=r-outer"),
                                       HasSubstr("inner request_id=r-inner"),
                                       HasSubstr("outer again request_id=r-outer"),
                                       ::testing::EndsWith("after")));
}

TEST(ParseLevel, AcceptsKnownNamesOnly) {
  EXPECT_THAT(ParseLevel("WARN"), IsOkAndHolds(Level::kWarning));
  EXPECT_THAT(ParseLevel("debug"), IsOkAndHolds(Level::kDebug));
  EXPECT_THAT(ParseLevel("loud"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("loud")));
  EXPECT_THAT(ParseFormat("json"), IsOkAndHolds(Format::kJson));
  EXPECT_THAT(ParseFormat("xml"), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::log
