// assisted-agent: runs on each host booted from the discovery image. See agent.h.
#include "lib/service/runner.h"
#include "services/agent/agent.h"

int main(int argc, char** argv) {
  return assisted::service::RunService<assisted::agent::Config>(
      "assisted-agent",
      "Runs on each host booted from an assisted discovery image: opens one gRPC stream to the "
      "orchestrator, registers the host with its hardware inventory, and runs the steps it is "
      "sent (checks, install, reboot).",
      {}, argc, argv, assisted::agent::Start);
}
