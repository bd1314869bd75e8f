// assisted-inventory: the system of record. See server.h.
#include "lib/service/runner.h"
#include "services/inventory/server.h"

int main(int argc, char** argv) {
  return assisted::service::RunService<assisted::inventory::Config>(
      "assisted-inventory",
      "The system of record of assisted: clusters, infra-envs, hosts, events, artifacts and "
      "leases in PostgreSQL, served over gRPC.",
      {.metrics_listen = "0.0.0.0:9101"}, argc, argv, assisted::inventory::Start);
}
