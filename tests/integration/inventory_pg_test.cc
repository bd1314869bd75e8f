// The inventory binary as a real process over real gRPC and a real PostgreSQL: tenancy from
// call metadata, Watch resuming across an inventory restart without gaps or duplicates, and
// surviving a database crash-restart under write load without losing an acknowledged write.
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/grpc/identity.h"
#include "lib/pg/connection.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
using ::testing::HasSubstr;

class InventoryTest : public PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    Launch();
  }

  void TearDown() override {
    if (inventory_ != nullptr && HasFailure()) std::cerr << inventory_->Log();
  }

  void Launch(const std::vector<std::string>& more_args = {},
              const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args = {"--postgres-dsn=" + dsn(), "--postgres-connect-timeout=2s",
                                     "--watch-bookmark-interval=200ms"};
    args.insert(args.end(), more_args.begin(), more_args.end());
    auto launched = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory", .args = args, .env = env});
    ASSERT_THAT(launched, IsOk());
    inventory_ = *std::move(launched);
    stub_ = inv::InventoryService::NewStub(
        grpc::CreateChannel(inventory_->grpc_target(), grpc::InsecureChannelCredentials()));
  }

  std::unique_ptr<grpc::ClientContext> Context(const grpcutil::Identity& identity = {}) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpcutil::SetIdentity(*context, identity);
    return context;
  }

  grpc::Status CreateCluster(const std::string& name, types::v1::Cluster* out,
                             const grpcutil::Identity& identity = {}) {
    inv::CreateClusterRequest request;
    request.mutable_cluster()->set_name(name);
    return stub_->CreateCluster(Context(identity).get(), request, out);
  }

  std::unique_ptr<LaunchedService> inventory_;
  std::unique_ptr<inv::InventoryService::Stub> stub_;
};

TEST_F(InventoryTest, CallerMetadataScopesEveryCallToItsTenant) {
  types::v1::Cluster mine;
  ASSERT_TRUE(CreateCluster("mine", &mine, {"alice", "org-a"}).ok());
  EXPECT_EQ(mine.owner().org_id(), "org-a");
  inv::GetClusterRequest get;
  get.set_id(mine.id());
  types::v1::Cluster read;
  EXPECT_EQ(stub_->GetCluster(Context({"bob", "org-b"}).get(), get, &read).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(stub_->GetCluster(Context({"carol", "org-a"}).get(), get, &read).ok());
  EXPECT_TRUE(stub_->GetCluster(Context().get(), get, &read).ok());  // another service
  get.set_id("not-a-uuid");
  const grpc::Status bad = stub_->GetCluster(Context().get(), get, &read);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("id:"));
}

// A cluster or an infra-env without a name is refused at the edge, naming the field, like
// every other malformed input (the request checks existed but nothing called them).
TEST_F(InventoryTest, ClustersAndInfraEnvsWithoutANameAreRefusedNamingTheField) {
  types::v1::Cluster cluster;
  const grpc::Status nameless_cluster = CreateCluster("", &cluster);
  EXPECT_EQ(nameless_cluster.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(nameless_cluster.error_message(), HasSubstr("cluster.name"));

  inv::CreateInfraEnvRequest nameless;
  types::v1::InfraEnv infra_env;
  const grpc::Status nameless_infra_env =
      stub_->CreateInfraEnv(Context().get(), nameless, &infra_env);
  EXPECT_EQ(nameless_infra_env.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(nameless_infra_env.error_message(), HasSubstr("infra_env.name"));

  inv::ListClustersRequest list;
  inv::ListClustersResponse listed;
  ASSERT_TRUE(stub_->ListClusters(Context().get(), list, &listed).ok());
  EXPECT_EQ(listed.clusters_size(), 0);
}

TEST_F(InventoryTest, SecretsAreWriteOnly) {
  inv::CreateInfraEnvRequest create_infra_env;
  create_infra_env.mutable_infra_env()->set_name("discovery");
  create_infra_env.set_pull_secret(R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})");
  types::v1::InfraEnv infra_env;
  ASSERT_TRUE(stub_->CreateInfraEnv(Context().get(), create_infra_env, &infra_env).ok());
  EXPECT_TRUE(infra_env.pull_secret_set());
  inv::CreateHostRequest create_host;
  create_host.mutable_host()->set_id("6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c3b");
  create_host.mutable_host()->set_infra_env_id(infra_env.id());
  create_host.mutable_host()->mutable_fencing_credentials()->set_address("redfish://bmc");
  create_host.mutable_host()->mutable_fencing_credentials()->set_password("hunter2");
  types::v1::Host host;
  ASSERT_TRUE(stub_->CreateHost(Context().get(), create_host, &host).ok());
  inv::ListHostsRequest list;
  list.set_infra_env_id(infra_env.id());
  inv::ListHostsResponse hosts;
  ASSERT_TRUE(stub_->ListHosts(Context().get(), list, &hosts).ok());
  ASSERT_EQ(hosts.hosts_size(), 1);
  EXPECT_TRUE(hosts.hosts(0).fencing_credentials().password_set());
  EXPECT_EQ(hosts.hosts(0).DebugString().find("hunter2"), std::string::npos);
  EXPECT_EQ(host.DebugString().find("hunter2"), std::string::npos);
  EXPECT_EQ(infra_env.DebugString().find("dXNlcjpwYXNz"), std::string::npos);
  EXPECT_EQ(inventory_->Log().find("hunter2"), std::string::npos);
}

TEST_F(InventoryTest, SecretsStoredInPlainAreSealedWhenTheInventoryStartsWithAKey) {
  constexpr char kAuth[] = "dXNlcjpwbGFpbi1iZWZvcmU=";  // user:plain-before
  inventory_->Stop();
  Launch({"--secrets-plaintext-for-development"}, {{"ASSISTED_SECRETS_KEY_FILE", ""}});
  inv::CreateClusterRequest create;
  create.mutable_cluster()->set_name("plain");
  create.mutable_cluster()->set_base_dns_domain("example.com");
  create.set_pull_secret(absl::StrCat(R"({"auths":{"quay.io":{"auth":")", kAuth, R"("}}})"));
  types::v1::Cluster cluster;
  const grpc::Status created = stub_->CreateCluster(Context().get(), create, &cluster);
  ASSERT_TRUE(created.ok()) << created.error_message();
  absl::StatusOr<std::unique_ptr<pg::Connection>> db = pg::Connection::Open(dsn());
  ASSERT_THAT(db, IsOk());
  auto stored = [&]() -> std::string {
    absl::StatusOr<pg::Result> rows =
        (*db)->Exec("SELECT secret FROM clusters WHERE id = $1::uuid", {cluster.id()});
    EXPECT_THAT(rows, IsOk());
    return rows.ok() && rows->rows() == 1 ? std::string(rows->Get(0, 0)) : "";
  };
  EXPECT_THAT(stored(), HasSubstr(kAuth));

  inventory_->Stop();
  Launch();  // with the launcher's key
  EXPECT_THAT(stored(), ::testing::StartsWith("sealed:"));
  EXPECT_THAT(stored(), ::testing::Not(HasSubstr(kAuth)));
  EXPECT_THAT(inventory_->Log(), HasSubstr("secrets sealed under the current key"));
  inv::GetPullSecretRequest get;
  get.set_cluster_id(cluster.id());
  inv::GetPullSecretResponse secret;
  ASSERT_TRUE(stub_->GetPullSecret(Context().get(), get, &secret).ok());
  EXPECT_EQ(secret.pull_secret(), create.pull_secret());
}

TEST_F(InventoryTest, BadInputIsRefusedNamingTheFieldAndNothingIsWritten) {
  types::v1::Cluster cluster;
  grpc::Status status = CreateCluster("My_Cluster", &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("cluster.name"));
  inv::CreateClusterRequest request;
  request.mutable_cluster()->set_name("good");
  request.set_pull_secret("{\"auths\": 42}");
  status = stub_->CreateCluster(Context().get(), request, &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("pull_secret"));
  inv::ListClustersResponse all;
  ASSERT_TRUE(stub_->ListClusters(Context().get(), {}, &all).ok());
  EXPECT_EQ(all.clusters_size(), 0);
}

// Reads a Watch stream on its own thread until stopped.
class Watcher {
 public:
  Watcher(inv::InventoryService::Stub& stub, int64_t from_seq, bool hints = false)
      : Watcher(stub, [&] {
          inv::WatchRequest request;
          request.set_from_seq(from_seq);
          request.set_hints(hints);
          return request;
        }()) {}

  Watcher(inv::InventoryService::Stub& stub, inv::WatchRequest request) {
    request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_CLUSTER);
    reader_ = stub.Watch(&context_, request);
    thread_ = std::thread([this] {
      inv::WatchEvent event;
      while (reader_->Read(&event)) {
        absl::MutexLock lock(&mu_);
        events_.push_back(event);
      }
    });
  }
  ~Watcher() { Stop(); }

  void Stop() {
    if (!thread_.joinable()) return;
    context_.TryCancel();
    thread_.join();
  }

  // Waits until `count` non-bookmark events arrived (or 10 s).
  std::vector<inv::WatchEvent> Changes(size_t count) {
    std::vector<inv::WatchEvent> changes;
    const bool arrived = EventuallyUnder(
        mu_,
        [&] {
          changes.clear();
          for (const auto& event : events_) {
            if (event.change_type() != inv::CHANGE_TYPE_BOOKMARK) changes.push_back(event);
          }
          return Observed{changes.size() >= count, absl::StrCat(changes.size(), " changes")};
        },
        absl::Seconds(30), absl::StrCat(count, " changes on the watch"));
    return arrived ? changes : std::vector<inv::WatchEvent>();
  }

  int64_t FirstBookmark() {
    if (!EventuallyUnder(
            mu_,
            [&] {
              return Observed{!events_.empty(), ""};
            },
            absl::Seconds(30), "a first event on the watch")) {
      return -1;
    }
    absl::MutexLock lock(&mu_);
    return events_.front().seq();
  }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<inv::WatchEvent>> reader_;
  absl::Mutex mu_;
  std::vector<inv::WatchEvent> events_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

TEST_F(InventoryTest, WatchResumesAcrossAnInventoryRestartWithoutGapsOrDuplicates) {
  std::vector<std::string> created;
  auto create = [&](int n) {
    for (int i = 0; i < n; ++i) {
      types::v1::Cluster cluster;
      ASSERT_TRUE(CreateCluster(absl::StrCat("c", created.size()), &cluster).ok());
      created.push_back(cluster.id());
    }
  };
  std::vector<inv::WatchEvent> seen;
  {
    Watcher watcher(*stub_, 0);
    ASSERT_GE(watcher.FirstBookmark(), 0);
    create(10);
    seen = watcher.Changes(10);
    ASSERT_EQ(seen.size(), 10u);
    watcher.Stop();
  }
  EXPECT_EQ(inventory_->Stop(), 0);
  Launch();
  create(7);  // changes the watcher misses while away
  Watcher resumed(*stub_, seen.back().seq());
  create(3);
  const std::vector<inv::WatchEvent> rest = resumed.Changes(10);
  ASSERT_EQ(rest.size(), 10u);
  seen.insert(seen.end(), rest.begin(), rest.end());
  std::vector<std::string> ids;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(seen[i].seq(), seen[i - 1].seq() + 1) << "gap or duplicate at " << i;
    }
    EXPECT_EQ(seen[i].change_type(), inv::CHANGE_TYPE_CREATED);
    ids.push_back(seen[i].id());
  }
  EXPECT_EQ(ids, created);
}

TEST_F(InventoryTest, AWatchThatAsksForHintsHearsOfEachChangeEarlyAndThenNumbered) {
  Watcher hinted(*stub_, 0, /*hints=*/true);
  Watcher plain(*stub_, 0);
  ASSERT_GE(hinted.FirstBookmark(), 0);
  ASSERT_GE(plain.FirstBookmark(), 0);
  std::set<std::string> created;
  for (int i = 0; i < 5; ++i) {
    types::v1::Cluster cluster;
    ASSERT_TRUE(CreateCluster(absl::StrCat("h", i), &cluster).ok());
    created.insert(cluster.id());
  }
  const std::vector<inv::WatchEvent> changes = hinted.Changes(10);
  ASSERT_EQ(changes.size(), 10u);
  std::set<std::string> hinted_ids;
  std::vector<int64_t> seqs;
  std::set<std::string> numbered_ids;
  for (const inv::WatchEvent& event : changes) {
    EXPECT_EQ(event.change_type(), inv::CHANGE_TYPE_CREATED);
    EXPECT_EQ(event.resource_version(), 1);
    if (event.hint()) {
      EXPECT_EQ(event.seq(), 0);
      hinted_ids.insert(event.id());
    } else {
      seqs.push_back(event.seq());
      numbered_ids.insert(event.id());
    }
  }
  EXPECT_EQ(hinted_ids, created);
  EXPECT_EQ(numbered_ids, created);
  for (size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1);
  const std::vector<inv::WatchEvent> unhinted = plain.Changes(5);
  ASSERT_EQ(unhinted.size(), 5u);
  for (const inv::WatchEvent& event : unhinted) EXPECT_FALSE(event.hint());
}

TEST_F(InventoryTest, WatchFromAPurgedOrFutureSeqIsOutOfRange) {
  inv::WatchRequest request;
  request.set_from_seq(1'000'000);
  grpc::ClientContext context;
  auto reader = stub_->Watch(&context, request);
  inv::WatchEvent event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::OUT_OF_RANGE);
}

// fleet_pg_test watched "from seq 1" to see changes made before it started; when the first
// change was still waiting to be numbered (a busy machine), the head was 0 and the watch ended
// at once with OUT_OF_RANGE, and the test waited for hosts it could no longer hear of.
TEST_F(InventoryTest, AWatchFromTheBeginningHearsEarlierChangesWhateverIsNumberedYet) {
  inv::WatchRequest ahead;
  ahead.set_from_seq(1);
  {
    grpc::ClientContext context;
    auto reader = stub_->Watch(&context, ahead);
    inv::WatchEvent event;
    EXPECT_FALSE(reader->Read(&event));  // nothing numbered yet: seq 1 is ahead of the head
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::OUT_OF_RANGE);
  }
  inv::WatchRequest from_beginning;
  from_beginning.set_from_beginning(true);
  from_beginning.mutable_filter()->add_kinds(inv::RESOURCE_KIND_CLUSTER);
  types::v1::Cluster before;
  ASSERT_TRUE(CreateCluster("before", &before).ok());
  Watcher watcher(*stub_, from_beginning);
  types::v1::Cluster after;
  ASSERT_TRUE(CreateCluster("after", &after).ok());
  const std::vector<inv::WatchEvent> changes = watcher.Changes(2);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].id(), before.id());
  EXPECT_EQ(changes[1].id(), after.id());

  inv::WatchRequest both = from_beginning;
  both.set_from_seq(3);
  grpc::ClientContext context;
  auto reader = stub_->Watch(&context, both);
  inv::WatchEvent event;
  EXPECT_FALSE(reader->Read(&event));
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("from_seq"));
}

TEST_F(InventoryTest, SurvivesADatabaseCrashRestartUnderLoadWithoutLosingAcknowledgedWrites) {
  std::atomic<bool> running{true};
  absl::Mutex mu;
  std::vector<std::string> acknowledged;
  std::map<grpc::StatusCode, int> failures;
  std::map<grpc::StatusCode, std::string> messages;
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; running; ++i) {
        types::v1::Cluster cluster;
        const grpc::Status status = CreateCluster(absl::StrCat("w", w, "-", i), &cluster);
        absl::MutexLock lock(&mu);
        if (status.ok()) {
          acknowledged.push_back(cluster.id());
        } else {
          ++failures[status.error_code()];
          messages[status.error_code()] = status.error_message();
        }
      }
    });
  }
  // Load before the crash, and after it until the writers are acknowledged again: waits on
  // the writers' own progress, not on a guess of how long that takes.
  auto acknowledged_at_least = [&](size_t count) {
    return EventuallyUnder(
        mu,
        [&] {
          return Observed{acknowledged.size() >= count, absl::StrCat(acknowledged.size())};
        },
        absl::Seconds(30), absl::StrCat(count, " acknowledged writes"));
  };
  EXPECT_TRUE(acknowledged_at_least(20));
  ASSERT_THAT(Server()->RestartImmediately(), IsOk());
  size_t at_restart;
  {
    absl::MutexLock lock(&mu);
    at_restart = acknowledged.size();
  }
  EXPECT_TRUE(acknowledged_at_least(at_restart + 20));
  running = false;
  for (auto& writer : writers) writer.join();

  EXPECT_THAT(CheckHealth(inventory_->grpc_target(), ""), IsOkAndHolds("SERVING"));
  for (const auto& [code, count] : failures) {
    EXPECT_EQ(code, grpc::StatusCode::UNAVAILABLE)
        << count << " calls failed with " << code << ", e.g. " << messages[code];
  }

  // Every write the service acknowledged is there after crash recovery.
  ASSERT_GT(acknowledged.size(), 20u);
  for (const std::string& id : acknowledged) {
    inv::GetClusterRequest get;
    get.set_id(id);
    types::v1::Cluster read;
    ASSERT_TRUE(stub_->GetCluster(Context().get(), get, &read).ok()) << id;
  }
  std::cout << acknowledged.size() << " writes acknowledged; failed during the restart:";
  for (const auto& [code, count] : failures) std::cout << " " << count << " with code " << code;
  std::cout << "\n";
}

}  // namespace
}  // namespace assisted::testing
