// assisted-gateway: the REST/JSON API. See server.h.
#include "lib/service/runner.h"
#include "services/gateway/server.h"

int main(int argc, char** argv) {
  return assisted::service::RunService<assisted::gateway::Config>(
      "assisted-gateway",
      "The public REST/JSON API of assisted (/api/assisted-install/v2), for aictl, the web UI "
      "and automation.",
      {.metrics_listen = "0.0.0.0:9103"}, argc, argv, assisted::gateway::Start);
}
