// Tests of the generic engine, once, on a toy machine (a door), so the machine tables can be
// tested for their content only.

#include "services/orchestrator/core/engine.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

enum class Door { kOpen, kClosed, kLocked };
enum class Ev { kPush, kLock, kKnock };
enum class Fx { kBeep, kLog };
struct Ctx {
  bool has_key = false;
  bool strong = false;
  int knocks = 0;
};

absl::string_view DoorName(Door d) {
  switch (d) {
    case Door::kOpen:
      return "open";
    case Door::kClosed:
      return "closed";
    case Door::kLocked:
      return "locked";
  }
  return "";
}
absl::string_view EvName(Ev e) {
  return e == Ev::kPush ? "push" : e == Ev::kLock ? "lock" : "knock";
}
absl::string_view FxName(Fx f) { return f == Fx::kBeep ? "beep" : "log"; }

using DoorMachine = StateMachine<Door, Ev, Ctx, Fx>;

DoorMachine MakeDoor() {
  auto key = When<Ctx>("has key", [](const Ctx& c) { return c.has_key; });
  auto strong = When<Ctx>("strong", [](const Ctx& c) { return c.strong; });
  return DoorMachine(
      "door", {Door::kOpen, Door::kClosed, Door::kLocked}, {Ev::kPush, Ev::kLock, Ev::kKnock},
      {
          {Ev::kPush,
           {Door::kLocked},
           Any<Ctx>({key, strong}),
           Door::kOpen,
           Info<Ctx, Fx>("forced", {Fx::kBeep}),
           "a key or force opens a locked door"},
          {Ev::kPush, {Door::kClosed}, Always<Ctx>(), Door::kOpen, {}, "push opens"},
          {Ev::kPush, {Door::kClosed}, Always<Ctx>(), Door::kLocked, {}, "never reached"},
          {Ev::kPush, {Door::kOpen}, Always<Ctx>(), Door::kClosed, {}, "push closes"},
          {Ev::kLock, {Door::kClosed}, key, Door::kLocked, {{Fx::kLog}, nullptr, ""}, "lock"},
          {Ev::kKnock,
           {Door::kOpen, Door::kClosed, Door::kLocked},
           Not(key),
           std::nullopt,
           {{}, [](const Ctx& c) { return absl::StrCat(c.knocks, " knocks"); }, "<n> knocks"},
           "knocking changes nothing"},
      },
      {DoorName, EvName, FxName});
}

TEST(Engine, FirstMatchingRowWins) {
  DoorMachine door = MakeDoor();
  absl::StatusOr<DoorMachine::DecisionType> d = door.Fire(Ev::kPush, Door::kClosed, Ctx{});
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, Door::kOpen);
  EXPECT_EQ(d->row, 1u);
  EXPECT_TRUE(d->changed());
}

TEST(Engine, GuardThatFailsSkipsTheRow) {
  DoorMachine door = MakeDoor();
  EXPECT_THAT(door.Fire(Ev::kPush, Door::kLocked, Ctx{}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("door: push is not allowed in state locked")));
  Ctx strong;
  strong.strong = true;
  absl::StatusOr<DoorMachine::DecisionType> d = door.Fire(Ev::kPush, Door::kLocked, strong);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, Door::kOpen);
  EXPECT_EQ(d->status_info, "forced");
  EXPECT_THAT(d->effects, ElementsAre(Fx::kBeep));
  EXPECT_TRUE(d->Has(Fx::kBeep));
  EXPECT_FALSE(d->Has(Fx::kLog));
}

TEST(Engine, StayRowKeepsTheStateAndComputesInfo) {
  DoorMachine door = MakeDoor();
  Ctx c;
  c.knocks = 3;
  absl::StatusOr<DoorMachine::DecisionType> d = door.Fire(Ev::kKnock, Door::kLocked, c);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, Door::kLocked);
  EXPECT_FALSE(d->changed());
  EXPECT_EQ(d->status_info, "3 knocks");
}

TEST(Engine, ActionWithoutInfoLeavesStatusInfoEmpty) {
  DoorMachine door = MakeDoor();
  Ctx c;
  c.has_key = true;
  absl::StatusOr<DoorMachine::DecisionType> d = door.Fire(Ev::kLock, Door::kClosed, c);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->status_info, "");
  EXPECT_THAT(d->effects, ElementsAre(Fx::kLog));
}

TEST(Engine, IsEdgeKnowsEveryRowIncludingStayRows) {
  DoorMachine door = MakeDoor();
  EXPECT_TRUE(door.IsEdge(Ev::kPush, Door::kOpen, Door::kClosed));
  EXPECT_TRUE(door.IsEdge(Ev::kKnock, Door::kOpen, Door::kOpen));
  EXPECT_FALSE(door.IsEdge(Ev::kKnock, Door::kOpen, Door::kClosed));
  EXPECT_FALSE(door.IsEdge(Ev::kLock, Door::kOpen, Door::kLocked));
}

TEST(Engine, GuardCombinatorsEvaluateAndNameThemselves) {
  auto a = When<Ctx>("has key", [](const Ctx& c) { return c.has_key; });
  auto b = When<Ctx>("strong", [](const Ctx& c) { return c.strong; });
  Guard<Ctx> all = All<Ctx>({a, Not(b)});
  Guard<Ctx> any = Any<Ctx>({a, b});
  EXPECT_EQ(all.name, "(has key) and (not (strong))");
  EXPECT_EQ(any.name, "(has key) or strong");
  EXPECT_EQ(Always<Ctx>().name, "always");
  Ctx c;
  EXPECT_FALSE(all.Holds(c));
  EXPECT_FALSE(any.Holds(c));
  c.has_key = true;
  EXPECT_TRUE(all.Holds(c));
  EXPECT_TRUE(any.Holds(c));
  c.strong = true;
  EXPECT_FALSE(all.Holds(c));
  EXPECT_TRUE(Always<Ctx>().Holds(c));
}

TEST(Engine, ExposesItsTableForDocs) {
  DoorMachine door = MakeDoor();
  EXPECT_EQ(door.name(), "door");
  EXPECT_EQ(door.rows().size(), 6u);
  EXPECT_EQ(door.states().size(), 3u);
  EXPECT_EQ(door.rows()[5].action.info_doc, "<n> knocks");
  EXPECT_EQ(door.naming().state(Door::kLocked), "locked");
}

}  // namespace
}  // namespace assisted::orchestrator::core
