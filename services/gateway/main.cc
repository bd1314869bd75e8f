// assisted-gateway: the REST/JSON API. See server.h.
#include "lib/service/runner.h"
#include "services/gateway/server.h"

int main(int argc, char** argv) {
  assisted::gateway::Config config;
  assisted::config::Parser parser(
      "assisted-gateway",
      "The public REST/JSON API of assisted (/api/assisted-install/v2), for aictl, the web UI "
      "and automation.");
  config.Register(parser);
  return assisted::service::RunMain(parser, {.metrics_listen = "0.0.0.0:9103"}, argc, argv,
                                    [&config](assisted::service::Context& context) {
                                      return assisted::gateway::Start(config, context);
                                    });
}
