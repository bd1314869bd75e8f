// assisted-orchestrator: agent streams, state machines, install orchestration. See server.h.
#include "lib/service/runner.h"
#include "services/orchestrator/server.h"

int main(int argc, char** argv) {
  return assisted::service::RunService<assisted::orchestrator::Config>(
      "assisted-orchestrator",
      "Serves the hosts' agent streams and the user actions of assisted: host and cluster state "
      "machines, validations and install orchestration, over gRPC.",
      {.metrics_listen = "0.0.0.0:9100"}, argc, argv, assisted::orchestrator::Start);
}
