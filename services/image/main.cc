// assisted-image: discovery images and their downloads. See server.h.
#include "lib/service/runner.h"
#include "services/image/server.h"

int main(int argc, char** argv) {
  assisted::image::Config config;
  assisted::config::Parser parser(
      "assisted-image",
      "Builds the discovery artifacts of assisted (Ignition, full and minimal ISO, PXE, iPXE) "
      "and serves them over HTTP with HEAD and Range support.");
  config.Register(parser);
  return assisted::service::RunMain(parser, {.metrics_listen = "0.0.0.0:9102"}, argc, argv,
                                    [&config](assisted::service::Context& context) {
                                      return assisted::image::Start(config, context);
                                    });
}
