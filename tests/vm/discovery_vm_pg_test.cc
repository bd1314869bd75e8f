// A real (virtual) machine boots the discovery ISO the image service serves and registers:
// real PostgreSQL, inventory, orchestrator, image service and gateway processes; an SNO cluster
// and an infra-env created through the REST API (aictl, in process); the ISO downloaded from the
// image service, built from ./dev os-images' live ISO; one QEMU machine (tests/vm/vm_fleet.h)
// booted from it, whose agent — started by the discovery Ignition the live initramfs took from
// the ISO's embed area — registers with its virtual hardware: the host shows up with an
// inventory naming its NIC's fixed MAC, its SMBIOS serial, its virtio disk and its vCPUs, its
// checks run for real, and it becomes known (ready to install).
//
// Needs ASSISTED_TEST_OS_IMAGES (the folder ./dev os-images prints; ./dev test sets it).
#include <iostream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "tests/vm/vm_stack.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kMac[] = "52:54:00:a5:00:01";
constexpr char kSerial[] = "ASSISTED-VM-0001";

class DiscoveryVmTest : public VmStackTest {};

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

TEST_F(DiscoveryVmTest, VirtualMachineBootsTheDiscoveryIsoAndRegistersItsHardware) {
  ASSERT_NO_FATAL_FAILURE(
      StartStack({.orchestrator_args = {"--os-image-url=file://" + images() + "/disk.raw"}}));
  ASSERT_NO_FATAL_FAILURE(CreateSnoCluster());
  const int vm = AddSnoMachine("sno-0", kMac, kSerial);
  ASSERT_GE(vm, 0);
  const absl::Time power_on = absl::Now();
  ASSERT_THAT(fleet().Boot(vm, {.cdrom = iso()}), IsOk());
  HostProgress progress;
  ASSERT_NO_FATAL_FAILURE(WaitUntilKnown(vm, power_on, absl::Minutes(10), progress));
  const json& host = progress.host;
  std::cout << "timings: power-on -> registered " << Seconds(progress.registered)
            << " s, -> inventory " << Seconds(progress.inventoried) << " s, -> validated ("
            << StringField(host, "status") << ") " << Seconds(progress.validated) << " s\n"
            << "validations: " << StringField(host, "validations_info") << "\n";

  // The real (virtual) hardware: the NIC's fixed MAC, the SMBIOS serial, the virtio disk, the
  // vCPUs.
  const json inventory = json::parse(StringField(host, "inventory"), nullptr, false);
  ASSERT_TRUE(inventory.is_object()) << StringField(host, "inventory");
  const std::string text = inventory.dump();
  EXPECT_THAT(text, HasSubstr(kMac));
  EXPECT_THAT(text, HasSubstr(kSerial));
  EXPECT_THAT(text, HasSubstr("vda"));
  // Proto JSON writes an int64 as a string.
  const json count = inventory.value("cpu", json::object()).value("count", json());
  EXPECT_TRUE(count == kSnoCpus || count == std::to_string(kSnoCpus)) << inventory["cpu"].dump();
  RecordProperty("power_on_to_registered_seconds", static_cast<int>(Seconds(progress.registered)));
  RecordProperty("power_on_to_validated_seconds", static_cast<int>(Seconds(progress.validated)));
}

}  // namespace
}  // namespace assisted::testing
