// assisted-orchestrator: agent streams, state machines, install orchestration. See server.h.
#include "lib/service/runner.h"
#include "services/orchestrator/server.h"

int main(int argc, char** argv) {
  assisted::orchestrator::Config config;
  assisted::config::Parser parser(
      "assisted-orchestrator",
      "Serves the hosts' agent streams and the user actions of assisted: host and cluster "
      "state machines, validations and install orchestration, over gRPC.");
  config.Register(parser);
  return assisted::service::RunMain(parser, {.metrics_listen = "0.0.0.0:9100"}, argc, argv,
                                    [&config](assisted::service::Context& context) {
                                      return assisted::orchestrator::Start(config, context);
                                    });
}
