// assisted-image: discovery images and their downloads. See server.h.
#include "lib/service/runner.h"
#include "services/image/server.h"

int main(int argc, char** argv) {
  return assisted::service::RunService<assisted::image::Config>(
      "assisted-image",
      "Builds the discovery artifacts of assisted (Ignition, full and minimal ISO, PXE, iPXE) "
      "and serves them over HTTP with HEAD and Range support.",
      {.metrics_listen = "0.0.0.0:9102"}, argc, argv, assisted::image::Start);
}
