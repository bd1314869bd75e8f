// File: services/orchestrator/core/inventory_util.cc

#include "services/orchestrator/core/inventory_util.h"

namespace assisted::orchestrator::core {

namespace {

void AddAll(const types::v1::Interface& nic,
            const google::protobuf::RepeatedPtrField<std::string>& texts,
            std::vector<InterfaceAddress>* out) {
  for (const std::string& text : texts) {
    absl::string_view address = absl::string_view(text).substr(0, text.find('/'));
    absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(address);
    absl::StatusOr<net::Cidr> network = net::Cidr::ParseInterface(text);
    if (ip.ok() && network.ok()) out->push_back({nic.name(), nic.mac_address(), *ip, *network});
  }
}

}  // namespace

std::vector<InterfaceAddress> Addresses(const types::v1::Inventory& inventory) {
  std::vector<InterfaceAddress> out;
  for (const types::v1::Interface& nic : inventory.interfaces()) {
    AddAll(nic, nic.ipv4_addresses(), &out);
    AddAll(nic, nic.ipv6_addresses(), &out);
  }
  return out;
}

std::string EffectiveHostname(const types::v1::Host& host) {
  return host.requested_hostname().empty() ? host.inventory().hostname()
                                           : host.requested_hostname();
}

bool HasDefaultRoute(const types::v1::Inventory& inventory) {
  for (const types::v1::Route& route : inventory.routes()) {
    absl::string_view d = route.destination();
    if (d == "0.0.0.0" || d == "0.0.0.0/0" || d == "::" || d == "::/0") return true;
  }
  return false;
}

const types::v1::Disk* InstallationDisk(const types::v1::Host& host) {
  for (const types::v1::Disk& disk : host.inventory().disks()) {
    if (!host.installation_disk_id().empty() && disk.id() == host.installation_disk_id()) {
      return &disk;
    }
  }
  for (const types::v1::Disk& disk : host.inventory().disks()) {
    if (!host.installation_disk_path().empty() && disk.path() == host.installation_disk_path()) {
      return &disk;
    }
  }
  return nullptr;
}

}  // namespace assisted::orchestrator::core
