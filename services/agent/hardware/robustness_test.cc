// File: services/agent/hardware/robustness_test.cc
//
// Whatever a machine (or a broken fixture) shows, collecting never crashes and always yields an
// inventory a receiver can parse: empty roots, absurd numbers, random bytes, odd links.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/hardware/fixture_trees.h"
#include "services/agent/hardware/host_id.h"
#include "services/agent/hardware/inventory.h"

namespace assisted::agent::hardware {
namespace {

namespace fs = std::filesystem;
using ::assisted::testing::IsOk;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using types::v1::Inventory;

// Collecting succeeds, the host id is a lower-case UUID and the message survives the wire.
Inventory CollectChecked(const std::string& root) {
  absl::StatusOr<Inventory> inventory = CollectInventory(HostRoot(root), CollectOptions{});
  EXPECT_THAT(inventory, IsOk());
  if (!inventory.ok()) return {};
  const std::string id = HostId(HostRoot(root));
  EXPECT_EQ(id.size(), 36u) << id;
  EXPECT_EQ(id, absl::AsciiStrToLower(id));
  Inventory parsed;
  EXPECT_TRUE(parsed.ParseFromString(inventory->SerializeAsString()))
      << "a string field is not valid UTF-8";
  return *std::move(inventory);
}

void ExpectSparse(const Inventory& inventory) {
  EXPECT_EQ(inventory.hostname(), "");
  EXPECT_EQ(inventory.cpu().count(), 0);
  EXPECT_EQ(inventory.memory().usable_bytes(), 0);
  EXPECT_EQ(inventory.memory().physical_bytes_method(),
            types::v1::PHYSICAL_MEMORY_METHOD_UNSPECIFIED);
  EXPECT_THAT(inventory.disks(), IsEmpty());
  EXPECT_THAT(inventory.interfaces(), IsEmpty());
  EXPECT_THAT(inventory.routes(), IsEmpty());
  EXPECT_THAT(inventory.gpus(), IsEmpty());
  EXPECT_EQ(inventory.boot().current_boot_mode(), types::v1::BOOT_MODE_BIOS);
  EXPECT_EQ(inventory.tpm_version(), types::v1::TPM_VERSION_NONE);
  EXPECT_FALSE(inventory.has_truncation());
}

TEST(EmptyRoot, AMissingRootGivesASparseInventory) {
  const std::string root = testing::FreshTempDir("missing") + "/not-there";
  ExpectSparse(CollectChecked(root));
  EXPECT_EQ(HostId(HostRoot(root)), kFallbackHostId);
}

TEST(EmptyRoot, AnEmptyDirectoryGivesASparseInventory) {
  ExpectSparse(CollectChecked(testing::FreshTempDir("empty")));
}

TEST(EmptyRoot, EmptyFilesGiveASparseInventory) {
  const std::string root = testing::FreshTempDir("empty-files");
  for (const char* path : {"proc/cpuinfo", "proc/meminfo", "proc/mounts", "proc/cmdline",
                           "proc/net/route", "proc/net/ipv6_route", "proc/net/if_inet6",
                           "assisted/addresses.json", "sys/class/dmi/id/board_serial"}) {
    ASSERT_THAT(testing::WriteFixtureFile(root, path, ""), IsOk());
  }
  ExpectSparse(CollectChecked(root));
}

class Corrupted : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> copy =
        testing::CopyFixture("server", testing::FreshTempDir("corrupted"));
    ASSERT_THAT(copy, IsOk());
    root_ = *copy;
  }
  void Write(const std::string& path, absl::string_view content) {
    ASSERT_THAT(testing::WriteFixtureFile(root_, path, content), IsOk());
  }
  std::string root_;
};

TEST_F(Corrupted, HugeNumbersAreTreatedAsMissing) {
  Write("sys/block/sda/size", "99999999999999999999999\n");
  Write("sys/block/sdb/size", "36028797018963968\n");  // 2^55 sectors: bytes overflow int64
  Write("sys/block/sdc/size", "-8\n");
  Write("proc/meminfo", "MemTotal:       9223372036854775807 kB\n");
  Write("sys/devices/system/memory/block_size_bytes", "ffffffffffffffffffff\n");
  Write("sys/devices/system/cpu/online", "0-99999999999\n");
  Write("proc/cpuinfo", "cpu MHz : 1e309\nflags : lm\n");
  Write("sys/class/net/ens1f0/speed", "99999999999999999999\n");
  Write("sys/class/net/ens1f0/mtu", "-9223372036854775808\n");
  Write("sys/class/net/ens1f0/flags", "0xffffffffffffffffffffffff\n");
  Write("proc/net/route",
        "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n"
        "bond0\t00000000\t016FA8C0\t0003\t0\t0\t99999999999999999999\t00000000\n"
        "bond0\t00000000\t016FA8C0\t0003\t0\t0\t4294967296\t00000000\n");
  Write("proc/net/if_inet6", "fd001101000000000000000000000023 06 ff 00 80 bond0\n");
  const Inventory inventory = CollectChecked(root_);
  for (const char* name : {"sda", "sdb", "sdc"}) {
    for (const types::v1::Disk& disk : inventory.disks()) {
      if (disk.name() == name) {
        EXPECT_EQ(disk.size_bytes(), 0) << name;
      }
    }
  }
  EXPECT_EQ(inventory.memory().usable_bytes(), 0);
  EXPECT_EQ(inventory.memory().physical_bytes(), 0);
  EXPECT_EQ(inventory.cpu().count(), 0);
  EXPECT_EQ(inventory.cpu().frequency(), 0);
  // One IPv4 row dropped, one clamped, then the five IPv6 routes.
  ASSERT_EQ(inventory.routes_size(), 6);
  EXPECT_EQ(inventory.routes(0).metric(), 2147483647);
}

TEST_F(Corrupted, LinksThatLoopOrLeaveTheRootAreIgnored) {
  ASSERT_THAT(testing::LinkFixtureFile(root_, "sys/class/net/eno3", "eno3"), IsOk());
  ASSERT_THAT(testing::LinkFixtureFile(root_, "sys/block/sdc", "../../../../../../../etc"), IsOk());
  ASSERT_THAT(testing::LinkFixtureFile(root_, "dev/disk/by-id/wwn-0x5002538e40a1b2c3", "/"),
              IsOk());
  ASSERT_THAT(testing::LinkFixtureFile(root_, "sys/class/dmi/id", "/sys/class/dmi/id"), IsOk());
  const Inventory inventory = CollectChecked(root_);
  std::vector<std::string> disks;
  for (const types::v1::Disk& disk : inventory.disks()) disks.push_back(disk.name());
  EXPECT_THAT(disks, Contains("sda"));
  EXPECT_EQ(inventory.system_vendor().manufacturer(), "");
}

TEST_F(Corrupted, GarbageTextBecomesValidAndBounded) {
  Write("sys/class/dmi/id/sys_vendor", "Super\xffmicro\xc3\n");
  Write("sys/class/dmi/id/product_name", std::string(100000, 'x'));
  const Inventory inventory = CollectChecked(root_);
  EXPECT_EQ(inventory.system_vendor().manufacturer(), "Super\xEF\xBF\xBDmicro\xEF\xBF\xBD");
  EXPECT_EQ(inventory.system_vendor().product_name().size(), 4096u);
  EXPECT_EQ(inventory.truncation().type(), types::v1::TRUNCATION_TYPE_PARTIAL);
  EXPECT_THAT(inventory.truncation().reasons(), Contains(HasSubstr("longer than 4096 bytes")));
}

// Replaces the content of random files of every fixture with random bytes, absurd numbers,
// nothing, or far too much, and collects: nothing may crash and the result must parse.
TEST(Fuzz, RandomlyCorruptedFixturesNeverBreakTheCollector) {
  const std::vector<std::string> replacements = {
      "99999999999999999999999999\n",
      "-9223372036854775808\n",
      "18446744073709551615\n",
      "0xffffffffffffffffffffffffffff\n",
      "",
      "-1\n",
      "nan\n",
      "1e309\n",
      ":\n=\n\t\t\n",
      "E:ID_SERIAL=\nS:../../../../etc\nE:=x\n",
      "{\"ipv4\": {\"x\": [1, null, \"300.1.1.1/99\"]}}",
  };
  int seed = 0;
  for (const char* host : {"laptop", "server", "vm"}) {
    absl::StatusOr<std::string> root = testing::CopyFixture(host, testing::FreshTempDir("fuzz"));
    ASSERT_THAT(root, IsOk());
    std::vector<std::string> files;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(*root)) {
      if (!entry.is_symlink() && entry.is_regular_file()) {
        files.push_back(fs::relative(entry.path(), *root).string());
      }
    }
    ASSERT_FALSE(files.empty());
    for (int round = 0; round < 40; ++round) {
      std::mt19937 random(++seed);
      std::map<std::string, std::string> originals;  // to restore after the round
      const int mutations = 1 + static_cast<int>(random() % 40);
      for (int m = 0; m < mutations; ++m) {
        const std::string& path = files[random() % files.size()];
        std::ifstream in(fs::path(*root) / path, std::ios::binary);
        std::string content(std::istreambuf_iterator<char>(in), {});
        originals.emplace(path, content);
        switch (random() % 4) {
          case 0:  // random bytes
            content.resize(random() % 700);
            for (char& c : content) c = static_cast<char>(random() % 256);
            break;
          case 1:
            content = replacements[random() % replacements.size()];
            break;
          case 2:  // far too much
            content = std::string(random() % 2 == 0 ? 200000 : (1 << 20) + 10, 'A');
            for (size_t i = 0; i < content.size(); i += 1 + random() % 64) content[i] = ' ';
            break;
          default:  // cut short
            content.resize(content.size() / 2);
        }
        ASSERT_THAT(testing::WriteFixtureFile(*root, path, content), IsOk());
      }
      SCOPED_TRACE(absl::StrCat(host, " round ", round));
      CollectChecked(*root);
      for (const auto& [path, content] : originals) {
        ASSERT_THAT(testing::WriteFixtureFile(*root, path, content), IsOk());
      }
    }
  }
}

}  // namespace
}  // namespace assisted::agent::hardware
