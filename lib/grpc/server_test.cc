#include "lib/grpc/server.h"

#include "absl/strings/str_cat.h"
#include "assisted/testing/v1/echo.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/health_client.h"
#include "lib/grpc/request_id.h"
#include "lib/grpc/rpc_metrics.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "prometheus/registry.h"

namespace assisted::grpcutil {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

class EchoServiceImpl final : public assisted::testing::v1::EchoService::Service {
 public:
  // The request id the last call ran under (log::CurrentRequestId in the handler).
  std::string seen_request_id;

 private:
  grpc::Status Echo(grpc::ServerContext*, const assisted::testing::v1::EchoRequest* request,
                    assisted::testing::v1::EchoResponse* response) override {
    seen_request_id = std::string(log::CurrentRequestId());
    if (request->fail_with_code() != 0) {
      return grpc::Status(static_cast<grpc::StatusCode>(request->fail_with_code()), "asked to");
    }
    response->set_message(request->message());
    return grpc::Status::OK;
  }
};

const std::string kEchoName = assisted::testing::v1::EchoService::service_full_name();

// A CA, a server certificate for localhost/127.0.0.1 and a client certificate, made with the
// openssl command once per test suite.
struct Pki {
  std::string dir, ca, server_cert, server_key, client_cert, client_key;
};

absl::Status Openssl(process::ProcessRunner& runner, const std::string& dir,
                     std::vector<std::string> args) {
  args.insert(args.begin(), "openssl");
  absl::StatusOr<process::CommandResult> result =
      runner.Run({.argv = args, .working_dir = dir, .timeout = absl::Minutes(1)});
  if (!result.ok()) return result.status();
  if (!result->ok()) return absl::InternalError(result->stderr_data);
  return absl::OkStatus();
}

absl::StatusOr<Pki> MakePki() {
  Pki pki;
  pki.dir = ::testing::TempDir();
  process::LocalProcessRunner runner;
  const std::vector<std::vector<std::string>> steps = {
      {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
       "-days", "1", "-subj", "/CN=assisted test CA"},
      {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
       "-subj", "/CN=localhost"},
      {"x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
       "-out", "server.pem", "-days", "1", "-extfile", "san.cnf"},
      {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
       "-subj", "/CN=agent"},
      {"x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
       "-out", "client.pem", "-days", "1"},
  };
  absl::StatusOr<process::CommandResult> san = runner.Run(
      {.argv = {"sh", "-c", "echo 'subjectAltName=DNS:localhost,IP:127.0.0.1' > san.cnf"},
       .working_dir = pki.dir});
  if (!san.ok()) return san.status();
  for (const auto& step : steps) {
    if (absl::Status status = Openssl(runner, pki.dir, step); !status.ok()) return status;
  }
  pki.ca = pki.dir + "/ca.pem";
  pki.server_cert = pki.dir + "/server.pem";
  pki.server_key = pki.dir + "/server.key";
  pki.client_cert = pki.dir + "/client.pem";
  pki.client_key = pki.dir + "/client.key";
  return pki;
}

class GrpcServerTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::unique_ptr<GrpcServer>> Start(GrpcServerOptions options) {
    if (options.listen.empty()) options.listen = "127.0.0.1:0";
    return GrpcServer::Start(options, {{&echo_, kEchoName}}, registry_, log::Logger::Discard());
  }

  static std::string Local(const GrpcServer& server, const std::string& host = "127.0.0.1") {
    return absl::StrCat(host, ":", server.port());
  }

  // The value of the counter `name` with exactly `labels`, or -1 when absent.
  double Counted(const std::string& name, const std::map<std::string, std::string>& labels) {
    for (const prometheus::MetricFamily& family : registry_.Collect()) {
      if (family.name != name) continue;
      for (const prometheus::ClientMetric& metric : family.metric) {
        std::map<std::string, std::string> has;
        for (const auto& label : metric.label) has[label.name] = label.value;
        if (has == labels) return metric.counter.value;
      }
    }
    return -1;
  }

  EchoServiceImpl echo_;
  prometheus::Registry registry_;
};

grpc::Status CallEcho(const std::shared_ptr<grpc::Channel>& channel, const std::string& message,
                      int fail_with_code = 0, std::string* reply = nullptr) {
  auto stub = assisted::testing::v1::EchoService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  assisted::testing::v1::EchoRequest request;
  request.set_message(message);
  request.set_fail_with_code(fail_with_code);
  assisted::testing::v1::EchoResponse response;
  grpc::Status status = stub->Echo(&context, request, &response);
  if (reply != nullptr) *reply = response.message();
  return status;
}

TEST_F(GrpcServerTest, ServesItsServicesAndHealthForEachOnAFreePort) {
  auto server = Start({});
  ASSERT_THAT(server, IsOk());
  EXPECT_GT((*server)->port(), 0);
  auto channel = MakeChannel(Local(**server), {});
  ASSERT_THAT(channel, IsOk());
  std::string reply;
  EXPECT_TRUE(CallEcho(*channel, "hello", 0, &reply).ok());
  EXPECT_EQ(reply, "hello");
  EXPECT_THAT(CheckHealth(*channel, "", absl::Seconds(5)), IsOkAndHolds("SERVING"));
  EXPECT_THAT(CheckHealth(*channel, kEchoName, absl::Seconds(5)), IsOkAndHolds("SERVING"));
}

// Community gRPC dashboards query go-grpc-prometheus's series; before, the server exported
// assisted_grpc_server_handled_total{method, code} and those panels stayed empty.
TEST_F(GrpcServerTest, CountsRpcsUnderGoGrpcPrometheusNamesAndLabels) {
  auto server = Start({});
  ASSERT_THAT(server, IsOk());
  auto channel = MakeChannel(Local(**server), {});
  ASSERT_THAT(channel, IsOk());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(CallEcho(*channel, "x").ok());
  EXPECT_EQ(CallEcho(*channel, "x", static_cast<int>(grpc::StatusCode::ABORTED)).error_code(),
            grpc::StatusCode::ABORTED);
  const std::map<std::string, std::string> echo = {
      {"grpc_type", "unary"}, {"grpc_service", kEchoName}, {"grpc_method", "Echo"}};
  std::map<std::string, std::string> ok = echo, aborted = echo;
  ok["grpc_code"] = "OK";
  aborted["grpc_code"] = "Aborted";
  EXPECT_EQ(Counted("grpc_server_handled_total", ok), 3);
  EXPECT_EQ(Counted("grpc_server_handled_total", aborted), 1);
  EXPECT_EQ(Counted("grpc_server_started_total", echo), 4);
  EXPECT_EQ(Counted("grpc_server_msg_received_total", echo), 4);
  EXPECT_EQ(Counted("grpc_server_msg_sent_total", echo), 3);  // a failed call sends no reply
}

TEST(GoCodeName, SpellsCodesAsGoDoes) {
  EXPECT_EQ(GoCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_EQ(GoCodeName(grpc::StatusCode::CANCELLED), "Canceled");
  EXPECT_EQ(GoCodeName(grpc::StatusCode::DEADLINE_EXCEEDED), "DeadlineExceeded");
  EXPECT_EQ(GoCodeName(grpc::StatusCode::UNAUTHENTICATED), "Unauthenticated");
}

TEST_F(GrpcServerTest, HandlersRunUnderTheRequestIdTheCallerForwarded) {
  auto server = Start({});
  ASSERT_THAT(server, IsOk());
  auto channel = MakeChannel(Local(**server), {});
  ASSERT_THAT(channel, IsOk());
  auto stub = assisted::testing::v1::EchoService::NewStub(*channel);
  assisted::testing::v1::EchoRequest request;
  assisted::testing::v1::EchoResponse response;
  {
    log::RequestIdScope scope("req-42");
    ASSERT_TRUE(stub->Echo(ContextWithin(absl::Seconds(5)).get(), request, &response).ok());
  }
  EXPECT_EQ(echo_.seen_request_id, "req-42");

  ASSERT_TRUE(stub->Echo(ContextWithin(absl::Seconds(5)).get(), request, &response).ok());
  EXPECT_EQ(echo_.seen_request_id, "") << "a call without an id ran under the previous one";

  std::unique_ptr<grpc::ClientContext> context = ContextWithin(absl::Seconds(5));
  context->AddMetadata(kRequestIdMetadata, "two words");
  ASSERT_TRUE(stub->Echo(context.get(), request, &response).ok());
  EXPECT_EQ(echo_.seen_request_id, "") << "a malformed id was taken";
}

TEST_F(GrpcServerTest, StopsServingAfterShutdown) {
  auto server = Start({});
  ASSERT_THAT(server, IsOk());
  const std::string target = Local(**server);
  (*server)->Shutdown(absl::Seconds(1));
  auto channel = MakeChannel(target, {});
  ASSERT_THAT(channel, IsOk());
  EXPECT_THAT(CheckHealth(*channel, "", absl::Milliseconds(500)), Not(IsOk()));
  (*server)->Shutdown(absl::Seconds(1));  // idempotent
}

TEST_F(GrpcServerTest, RefusesAnAddressAlreadyInUse) {
  auto first = Start({});
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(Start({.listen = Local(**first)}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot listen")));
}

TEST_F(GrpcServerTest, RejectsHalfATlsConfiguration) {
  EXPECT_THAT(Start({.tls_cert_file = "/x.pem"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-key")));
  EXPECT_THAT(Start({.tls_client_ca_file = "/ca.pem"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-client-ca")));
  EXPECT_THAT(Start({.tls_cert_file = "/nonexistent.pem", .tls_key_file = "/nonexistent.key"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/nonexistent.pem")));
}

class GrpcServerTlsTest : public GrpcServerTest {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<Pki> pki = MakePki();
    ASSERT_THAT(pki, IsOk());
    pki_ = new Pki(*pki);
  }
  static void TearDownTestSuite() { delete pki_; }
  static Pki* pki_;
};
Pki* GrpcServerTlsTest::pki_ = nullptr;

TEST_F(GrpcServerTlsTest, ServesTlsToClientsThatTrustItsCa) {
  auto server = Start({.tls_cert_file = pki_->server_cert, .tls_key_file = pki_->server_key});
  ASSERT_THAT(server, IsOk());
  auto trusted = MakeChannel(Local(**server, "localhost"), {.ca_bundle_file = pki_->ca});
  ASSERT_THAT(trusted, IsOk());
  EXPECT_TRUE(CallEcho(*trusted, "secure").ok());

  auto plaintext = MakeChannel(Local(**server), {});
  ASSERT_THAT(plaintext, IsOk());
  EXPECT_FALSE(CallEcho(*plaintext, "x").ok());
}

TEST_F(GrpcServerTlsTest, MutualTlsRequiresAClientCertificate) {
  auto server = Start({.tls_cert_file = pki_->server_cert,
                       .tls_key_file = pki_->server_key,
                       .tls_client_ca_file = pki_->ca});
  ASSERT_THAT(server, IsOk());
  auto anonymous = MakeChannel(Local(**server, "localhost"), {.ca_bundle_file = pki_->ca});
  ASSERT_THAT(anonymous, IsOk());
  EXPECT_FALSE(CallEcho(*anonymous, "x").ok());

  auto identified =
      MakeChannel(Local(**server, "localhost"), {.ca_bundle_file = pki_->ca,
                                                 .client_cert_file = pki_->client_cert,
                                                 .client_key_file = pki_->client_key});
  ASSERT_THAT(identified, IsOk());
  EXPECT_TRUE(CallEcho(*identified, "x").ok());
}

TEST(MakeChannel, RejectsHalfAClientIdentityAndUnreadableFiles) {
  EXPECT_THAT(MakeChannel("localhost:1", {.client_cert_file = "/c.pem"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(MakeChannel("localhost:1", {.ca_bundle_file = "/nonexistent/ca.pem"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/nonexistent/ca.pem")));
}

}  // namespace
}  // namespace assisted::grpcutil
