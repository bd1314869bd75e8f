// bench/bare_agent_server: the floor bench/agents measures the orchestrator against. It serves
// the agent protocol's one stream per agent through the project's gRPC server bootstrap
// (lib/grpc/server.h: the same keepalive, limits and interceptors as the orchestrator, and the
// same allocator, TCMalloc) with nothing behind it: each stream's Register is answered
// Registered (accepted, CONTINUE) and everything else is read and dropped. What it holds per
// stream is what gRPC itself holds, and how fast a fleet registers with it is how fast the
// connections alone can be opened.
//
//   bare_agent_server --grpc-listen=127.0.0.1:PORT [--metrics-listen=…]
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "grpcpp/support/server_callback.h"
#include "lib/grpc/message_limits.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace {

namespace v1 = ::assisted::agent::v1;

// One agent's stream: answers its Register once, drops everything else, finishes when the
// agent ends the stream (after the answer, if that is still being written).
class BareSession final : public grpc::ServerBidiReactor<v1::AgentMessage, v1::ServiceMessage> {
 public:
  BareSession() { StartRead(&received_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      absl::MutexLock lock(&mu_);
      ended_ = true;
      if (!writing_) Finish(grpc::Status::OK);
      return;
    }
    if (received_.has_register_()) Answer(received_.register_().host_id());
    StartRead(&received_);
  }

  void OnWriteDone(bool) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (ended_) Finish(grpc::Status::OK);
  }

  void OnDone() override { delete this; }

 private:
  void Answer(const std::string& host_id) {
    absl::MutexLock lock(&mu_);
    if (answered_) return;
    answered_ = true;
    writing_ = true;
    answer_.set_seq(1);
    v1::Registered* registered = answer_.mutable_registered();
    registered->set_host_id(host_id);
    registered->set_accepted(true);
    registered->set_next_action(v1::REGISTRATION_ACTION_CONTINUE);
    StartWrite(&answer_);
  }

  v1::AgentMessage received_;  // read callbacks are serial: only they touch it
  absl::Mutex mu_;
  v1::ServiceMessage answer_ ABSL_GUARDED_BY(mu_);
  bool answered_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

class BareAgentService final : public v1::AgentService::CallbackService {
  grpc::ServerBidiReactor<v1::AgentMessage, v1::ServiceMessage>* Connect(
      grpc::CallbackServerContext*) override {
    return new BareSession;
  }
};

// The orchestrator's agent port settings (services/orchestrator/server.h).
struct Config {
  assisted::grpcutil::GrpcServerOptions grpc{
      .listen = "127.0.0.1:0",
      .max_receive_message_bytes = assisted::grpcutil::kMaxAgentMessageBytes,
      .max_threads = 64};
  void Register(assisted::config::Parser& parser) { grpc.Register(parser, ""); }
};

class Running final : public assisted::service::RunningService {
 public:
  static absl::StatusOr<std::unique_ptr<assisted::service::RunningService>> Start(
      const Config& config, assisted::service::Context& context) {
    auto running = std::unique_ptr<Running>(new Running);
    auto server = assisted::grpcutil::GrpcServer::Start(
        config.grpc, {{&running->service_, v1::AgentService::service_full_name()}},
        *context.metrics, context.log);
    if (!server.ok()) return server.status();
    running->server_ = *std::move(server);
    return running;
  }
  void Shutdown(absl::Duration grace) override { server_->Shutdown(grace); }

 private:
  Running() = default;
  BareAgentService service_;  // before the server that serves it
  std::unique_ptr<assisted::grpcutil::GrpcServer> server_;
};

}  // namespace

int main(int argc, char** argv) {
  return assisted::service::RunService<Config>(
      "bare_agent_server",
      "The agent protocol's streams with nothing behind them: the floor of bench/agents.", {}, argc,
      argv, Running::Start);
}
