// assisted-inventory: the system of record. See server.h.
#include "lib/service/runner.h"
#include "services/inventory/server.h"

int main(int argc, char** argv) {
  assisted::inventory::Config config;
  assisted::config::Parser parser(
      "assisted-inventory",
      "The system of record of assisted: clusters, infra-envs, hosts, events, artifacts and "
      "leases in PostgreSQL, served over gRPC.");
  config.Register(parser);
  return assisted::service::RunMain(parser, {.metrics_listen = "0.0.0.0:9101"}, argc, argv,
                                    [&config](assisted::service::Context& context) {
                                      return assisted::inventory::Start(config, context);
                                    });
}
