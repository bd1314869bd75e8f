// File: services/orchestrator/testing/fake_inventory.cc

#include "services/orchestrator/testing/fake_inventory.h"

#include <algorithm>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "lib/time/proto_time.h"

namespace assisted::orchestrator::testing {
namespace {

namespace inv = inventory::v1;

// The inventory's own timestamps of a write at `now`: updated_at always, status_updated_at when
// the status moved (or was never set), created_at once.
template <typename Record>
void Stamp(Record& record, bool status_moved, absl::Time now) {
  const google::protobuf::Timestamp at = ToTimestamp(now);
  *record.mutable_updated_at() = at;
  if (status_moved || !record.has_status_updated_at()) *record.mutable_status_updated_at() = at;
  if (!record.has_created_at()) *record.mutable_created_at() = at;
}

absl::Status CheckVersion(const std::string& what, int64_t expected, int64_t actual) {
  if (expected <= 0 || expected == actual) return absl::OkStatus();
  return absl::AbortedError(
      absl::StrCat(what, " was modified: resource_version is ", actual, ", expected ", expected));
}

}  // namespace

class FakeInventory::Subscription final : public WatchSubscription {
 public:
  Subscription(FakeInventory& inventory, int id) : inventory_(inventory), id_(id) {}
  ~Subscription() override {
    // Waits for a delivery in flight: no callback runs once this returns.
    absl::MutexLock delivering(&inventory_.delivering_);
    absl::MutexLock lock(&inventory_.mu_);
    inventory_.subscribers_.erase(id_);
  }

 private:
  FakeInventory& inventory_;
  const int id_;
};

types::v1::Cluster FakeInventory::AddCluster(types::v1::Cluster cluster, std::string pull_secret) {
  cluster.clear_hosts();
  if (cluster.resource_version() == 0) cluster.set_resource_version(1);
  Stamp(cluster, false, clock_.Now());
  absl::MutexLock lock(&mu_);
  pull_secrets_[cluster.id()] = std::move(pull_secret);
  return clusters_[cluster.id()] = std::move(cluster);
}

types::v1::InfraEnv FakeInventory::AddInfraEnv(types::v1::InfraEnv infra_env,
                                               std::string signing_key) {
  if (infra_env.resource_version() == 0) infra_env.set_resource_version(1);
  absl::MutexLock lock(&mu_);
  signing_keys_[infra_env.id()] = std::move(signing_key);
  return infra_envs_[infra_env.id()] = std::move(infra_env);
}

types::v1::Host FakeInventory::AddHost(types::v1::Host host) {
  if (host.resource_version() == 0) host.set_resource_version(1);
  Stamp(host, false, clock_.Now());
  absl::MutexLock lock(&mu_);
  return hosts_[{host.infra_env_id(), host.id()}] = std::move(host);
}

void FakeInventory::RemoveHost(const std::string& infra_env_id, const std::string& id) {
  absl::MutexLock lock(&mu_);
  hosts_.erase({infra_env_id, id});
}

types::v1::Cluster FakeInventory::Cluster(const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = clusters_.find(id);
  return it == clusters_.end() ? types::v1::Cluster() : it->second;
}

types::v1::Host FakeInventory::Host(const std::string& infra_env_id, const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = hosts_.find({infra_env_id, id});
  return it == hosts_.end() ? types::v1::Host() : it->second;
}

bool FakeInventory::HasHost(const std::string& infra_env_id, const std::string& id) const {
  absl::MutexLock lock(&mu_);
  return hosts_.count({infra_env_id, id});
}

std::vector<types::v1::Event> FakeInventory::Events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

int FakeInventory::host_writes() const {
  absl::MutexLock lock(&mu_);
  return host_writes_;
}

void FakeInventory::FailNext(const std::string& method, absl::Status status) {
  absl::MutexLock lock(&mu_);
  failures_[method].push_back(std::move(status));
}

absl::Status FakeInventory::Injected(const std::string& method) {
  auto it = failures_.find(method);
  if (it == failures_.end() || it->second.empty()) return absl::OkStatus();
  absl::Status status = it->second.front();
  it->second.erase(it->second.begin());
  return status;
}

void FakeInventory::Announce(inv::ResourceKind kind, const types::v1::Host* host,
                             const types::v1::Cluster* cluster, inv::ChangeType change) {
  inv::WatchEvent event;
  event.set_seq(++seq_);
  event.set_kind(kind);
  event.set_change_type(change);
  if (host != nullptr) {
    event.set_id(host->id());
    event.set_infra_env_id(host->infra_env_id());
    event.set_cluster_id(host->cluster_id());
    event.set_resource_version(host->resource_version());
    event.set_host_status(host->status());
  } else {
    event.set_id(cluster->id());
    event.set_cluster_id(cluster->id());
    event.set_resource_version(cluster->resource_version());
    event.set_cluster_status(cluster->status());
  }
  pending_.push_back(std::move(event));
}

void FakeInventory::Deliver() {
  absl::MutexLock delivering(&delivering_);
  while (true) {
    std::vector<inv::WatchEvent> events;
    std::vector<Subscriber> subscribers;
    {
      absl::MutexLock lock(&mu_);
      events.swap(pending_);
      for (const auto& [id, subscriber] : subscribers_) subscribers.push_back(subscriber);
    }
    if (events.empty()) return;
    for (const inv::WatchEvent& event : events) {
      for (const Subscriber& subscriber : subscribers) {
        const bool wanted =
            subscriber.kinds.empty() || std::find(subscriber.kinds.begin(), subscriber.kinds.end(),
                                                  event.kind()) != subscriber.kinds.end();
        if (wanted && subscriber.callbacks.on_change) subscriber.callbacks.on_change(event);
      }
    }
  }
}

void FakeInventory::AfterNextGetCluster(std::function<void()> then) {
  absl::MutexLock lock(&mu_);
  after_get_cluster_ = std::move(then);
}

absl::StatusOr<types::v1::Cluster> FakeInventory::GetCluster(const std::string& id,
                                                             bool with_hosts) {
  std::function<void()> then;
  absl::StatusOr<types::v1::Cluster> read = [&]() -> absl::StatusOr<types::v1::Cluster> {
    absl::MutexLock lock(&mu_);
    then = std::exchange(after_get_cluster_, nullptr);
    RETURN_IF_ERROR(Injected("GetCluster"));
    auto it = clusters_.find(id);
    if (it == clusters_.end()) return absl::NotFoundError(absl::StrCat("cluster ", id));
    types::v1::Cluster cluster = it->second;
    if (with_hosts) {
      for (const auto& [key, host] : hosts_) {
        if (host.cluster_id() == id) *cluster.add_hosts() = host;
      }
    }
    return cluster;
  }();
  if (then) then();
  return read;
}

absl::StatusOr<types::v1::Host> FakeInventory::GetHost(const std::string& infra_env_id,
                                                       const std::string& id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("GetHost"));
  auto it = hosts_.find({infra_env_id, id});
  if (it == hosts_.end()) return absl::NotFoundError(absl::StrCat("host ", id));
  return it->second;
}

absl::StatusOr<types::v1::InfraEnv> FakeInventory::GetInfraEnv(const std::string& id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("GetInfraEnv"));
  auto it = infra_envs_.find(id);
  if (it == infra_envs_.end()) return absl::NotFoundError(absl::StrCat("infra-env ", id));
  return it->second;
}

absl::StatusOr<std::vector<types::v1::InfraEnv>> FakeInventory::ListClusterInfraEnvs(
    const std::string& cluster_id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("ListClusterInfraEnvs"));
  std::vector<types::v1::InfraEnv> found;
  for (const auto& [id, infra_env] : infra_envs_) {
    if (infra_env.cluster_id() == cluster_id) found.push_back(infra_env);
  }
  return found;
}

absl::StatusOr<std::vector<types::v1::Host>> FakeInventory::ListHostsHeldByOthers(
    const std::string& holder) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("ListHostsHeldByOthers"));
  std::vector<types::v1::Host> found;
  for (const auto& [key, host] : hosts_) {
    if (!host.agent_stream_holder().empty() && host.agent_stream_holder() != holder) {
      found.push_back(host);
    }
  }
  return found;
}

absl::StatusOr<std::string> FakeInventory::GetPullSecret(const std::string& cluster_id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("GetPullSecret"));
  auto it = pull_secrets_.find(cluster_id);
  if (it == pull_secrets_.end()) return absl::NotFoundError(absl::StrCat("cluster ", cluster_id));
  return it->second;
}

absl::StatusOr<std::string> FakeInventory::GetInfraEnvSigningKey(const std::string& infra_env_id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("GetInfraEnvSigningKey"));
  auto it = signing_keys_.find(infra_env_id);
  if (it == signing_keys_.end()) {
    return absl::NotFoundError(absl::StrCat("infra-env ", infra_env_id));
  }
  return it->second;
}

absl::StatusOr<types::v1::Host> FakeInventory::CreateHost(const types::v1::Host& host) {
  types::v1::Host created = host;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(Injected("CreateHost"));
    if (host.id().empty()) return absl::InvalidArgumentError("host.id: required");
    if (!infra_envs_.count(host.infra_env_id())) {
      return absl::FailedPreconditionError(absl::StrCat("infra-env ", host.infra_env_id()));
    }
    if (hosts_.count({host.infra_env_id(), host.id()})) {
      return absl::AlreadyExistsError(absl::StrCat("host ", host.id()));
    }
    if (created.status() == types::v1::HOST_STATUS_UNSPECIFIED) {
      created.set_status(created.cluster_id().empty() ? types::v1::HOST_STATUS_DISCOVERING_UNBOUND
                                                      : types::v1::HOST_STATUS_DISCOVERING);
    }
    created.set_resource_version(1);
    Stamp(created, true, clock_.Now());
    hosts_[{host.infra_env_id(), host.id()}] = created;
    Announce(inv::RESOURCE_KIND_HOST, &created, nullptr, inv::CHANGE_TYPE_CREATED);
  }
  Deliver();
  return created;
}

template <typename Record, typename Key, typename Status>
absl::StatusOr<Record> FakeInventory::Write(std::map<Key, Record>& records, const Key& key,
                                            const std::string& what,
                                            const WriteCheck<Status>& check,
                                            const core::FieldsUpdate<Record>& update) {
  auto it = records.find(key);
  if (it == records.end()) return absl::NotFoundError(absl::StrCat(what, " not found"));
  const Record& stored = it->second;
  RETURN_IF_ERROR(CheckVersion(what, check.expected_version, stored.resource_version()));
  if (check.expected_status.has_value() && stored.status() != *check.expected_status) {
    return absl::AbortedError(absl::StrCat(what, " is no longer in the status expected"));
  }
  Record written = stored;
  update.ApplyTo(written);
  if (check.to.has_value()) {
    written.set_status(*check.to);
    written.set_status_info(check.status_info);
  }
  written.set_resource_version(stored.resource_version() + 1);
  Stamp(written, written.status() != stored.status(), clock_.Now());
  it->second = written;
  if constexpr (std::is_same_v<Record, types::v1::Host>) {
    ++host_writes_;
    Announce(inv::RESOURCE_KIND_HOST, &written, nullptr, inv::CHANGE_TYPE_UPDATED);
  } else {
    Announce(inv::RESOURCE_KIND_CLUSTER, nullptr, &written, inv::CHANGE_TYPE_UPDATED);
  }
  return written;
}

absl::StatusOr<types::v1::Host> FakeInventory::UpdateHost(const std::string& infra_env_id,
                                                          const std::string& id,
                                                          const core::HostFieldsUpdate& update,
                                                          int64_t expected_version) {
  absl::StatusOr<types::v1::Host> written;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(Injected("UpdateHost"));
    written =
        Write(hosts_, HostKey{infra_env_id, id}, absl::StrCat("host ", id),
              WriteCheck<types::v1::HostStatus>{.expected_version = expected_version}, update);
  }
  Deliver();
  return written;
}

absl::StatusOr<types::v1::Cluster> FakeInventory::UpdateCluster(
    const std::string& id, const core::ClusterFieldsUpdate& update, int64_t expected_version) {
  absl::StatusOr<types::v1::Cluster> written;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(Injected("UpdateCluster"));
    written =
        Write(clusters_, id, absl::StrCat("cluster ", id),
              WriteCheck<types::v1::ClusterStatus>{.expected_version = expected_version}, update);
  }
  Deliver();
  return written;
}

absl::StatusOr<types::v1::Host> FakeInventory::UpdateHostStatus(
    const types::v1::Host& stored, types::v1::HostStatus to, const std::string& status_info,
    const core::HostFieldsUpdate& patch) {
  absl::StatusOr<types::v1::Host> written;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(Injected("UpdateHostStatus"));
    written = Write(hosts_, HostKey{stored.infra_env_id(), stored.id()},
                    absl::StrCat("host ", stored.id()),
                    WriteCheck<types::v1::HostStatus>{
                        .expected_status = stored.status(), .to = to, .status_info = status_info},
                    patch);
  }
  Deliver();
  return written;
}

absl::StatusOr<types::v1::Cluster> FakeInventory::UpdateClusterStatus(
    const types::v1::Cluster& stored, types::v1::ClusterStatus to, const std::string& status_info,
    const core::ClusterFieldsUpdate& patch) {
  absl::StatusOr<types::v1::Cluster> written;
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(Injected("UpdateClusterStatus"));
    written = Write(clusters_, stored.id(), absl::StrCat("cluster ", stored.id()),
                    WriteCheck<types::v1::ClusterStatus>{
                        .expected_status = stored.status(), .to = to, .status_info = status_info},
                    patch);
  }
  Deliver();
  return written;
}

absl::Status FakeInventory::AppendEvent(const types::v1::Event& event) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("AppendEvent"));
  events_.push_back(event);
  return absl::OkStatus();
}

absl::StatusOr<inv::Artifact> FakeInventory::GetArtifact(const std::string& cluster_id,
                                                         const std::string& name,
                                                         bool metadata_only) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("GetArtifact"));
  auto it = artifacts_.find({cluster_id, name});
  if (it == artifacts_.end()) return absl::NotFoundError(absl::StrCat("artifact ", name));
  inv::Artifact artifact = it->second;
  if (metadata_only) artifact.clear_content();
  return artifact;
}

absl::Status FakeInventory::ClusterStatusIn(
    const std::string& cluster_id, const std::vector<types::v1::ClusterStatus>& allowed) const {
  if (allowed.empty()) return absl::OkStatus();
  auto cluster = clusters_.find(cluster_id);
  if (cluster == clusters_.end()) return absl::NotFoundError("cluster " + cluster_id);
  if (std::find(allowed.begin(), allowed.end(), cluster->second.status()) != allowed.end()) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("cluster ", cluster_id, " is ",
                   types::v1::ClusterStatus_Name(cluster->second.status()), " now"));
}

absl::Status FakeInventory::PutArtifact(const ArtifactWrite& write) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("PutArtifact"));
  if (write.fence.has_value()) {
    auto lease = leases_.find(write.fence->name());
    if (lease == leases_.end() || lease->second.epoch != write.fence->epoch() ||
        lease->second.expires <= clock_.Now()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "lease ", write.fence->name(), " is no longer held at epoch ", write.fence->epoch()));
    }
  }
  RETURN_IF_ERROR(ClusterStatusIn(write.cluster_id, write.cluster_status_in));
  const std::pair<std::string, std::string> key{write.cluster_id, write.name};
  auto it = artifacts_.find(key);
  if (write.if_absent && it != artifacts_.end()) {
    return absl::AlreadyExistsError(absl::StrCat("artifact ", write.name));
  }
  inv::Artifact& artifact = artifacts_[key];
  std::string& content = *artifact.mutable_content();
  if (write.offset > static_cast<int64_t>(content.size())) {
    return absl::FailedPreconditionError(absl::StrCat("offset: past the stored ", content.size()));
  }
  content.resize(write.offset);
  content += write.content;
  artifact.mutable_info()->set_cluster_id(write.cluster_id);
  artifact.mutable_info()->set_name(write.name);
  artifact.mutable_info()->set_kind(write.kind);
  artifact.mutable_info()->set_content_type(write.content_type);
  artifact.mutable_info()->set_partial(write.partial);
  return absl::OkStatus();
}

absl::Status FakeInventory::DeleteArtifacts(const std::string& cluster_id,
                                            const std::vector<inv::ArtifactKind>& kinds) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("DeleteArtifacts"));
  for (auto it = artifacts_.begin(); it != artifacts_.end();) {
    const bool kind = kinds.empty() || std::find(kinds.begin(), kinds.end(),
                                                 it->second.info().kind()) != kinds.end();
    if (it->first.first == cluster_id && kind) {
      it = artifacts_.erase(it);
    } else {
      ++it;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<inv::ArtifactInfo>> FakeInventory::ListArtifacts(
    const std::string& cluster_id, inv::ArtifactKind kind) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("ListArtifacts"));
  std::vector<inv::ArtifactInfo> listed;
  for (const auto& [key, artifact] : artifacts_) {  // a map: ordered by (cluster, name)
    if (key.first == cluster_id && artifact.info().kind() == kind) {
      listed.push_back(artifact.info());
    }
  }
  return listed;
}

absl::StatusOr<int64_t> FakeInventory::DeleteArtifact(
    const std::string& cluster_id, const std::string& name,
    const std::vector<types::v1::ClusterStatus>& cluster_status_in) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("DeleteArtifacts"));
  RETURN_IF_ERROR(ClusterStatusIn(cluster_id, cluster_status_in));
  return static_cast<int64_t>(artifacts_.erase(std::make_pair(cluster_id, name)));
}

absl::StatusOr<LeaseState> FakeInventory::AcquireLease(const std::string& name,
                                                       const std::string& holder,
                                                       absl::Duration ttl) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("AcquireLease"));
  const absl::Time now = clock_.Now();
  Lease& lease = leases_[name];
  const bool free = lease.holder.empty() || lease.expires <= now;
  if (!free && lease.holder != holder) return LeaseState{false, lease.holder, lease.epoch};
  if (lease.holder != holder || lease.epoch == 0) ++lease.epoch;  // changes hands
  lease.holder = holder;
  lease.expires = now + ttl;
  return LeaseState{true, holder, lease.epoch};
}

absl::Status FakeInventory::ReleaseLease(const std::string& name, const std::string& holder) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(Injected("ReleaseLease"));
  auto it = leases_.find(name);
  if (it != leases_.end() && it->second.holder == holder) {
    it->second.holder.clear();  // the epoch stays: the next holding gets a higher one
    it->second.expires = absl::InfinitePast();
  }
  return absl::OkStatus();
}

std::unique_ptr<WatchSubscription> FakeInventory::Watch(std::vector<inv::ResourceKind> kinds,
                                                        bool /*hints: none sent*/,
                                                        WatchCallbacks callbacks) {
  absl::MutexLock lock(&mu_);
  const int id = next_subscriber_++;
  subscribers_[id] = Subscriber{std::move(kinds), std::move(callbacks)};
  return std::make_unique<Subscription>(*this, id);
}

}  // namespace assisted::orchestrator::testing
