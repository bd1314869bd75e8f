// File: services/image/http_routes.h
//
// The image service's HTTP face, for browsers, BMC virtual media and PXE firmware: downloads
// behind signed short URLs (GET and HEAD, single Range, If-Range against a strong ETag), plus
// /health and /ready.
//
//   GET /images/{token}/discovery.iso      the full discovery ISO
//   GET /images/{token}/minimal.iso        the minimal discovery ISO (rootfs fetched at boot)
//   GET /rootfs/{token}/rootfs.img         the live rootfs that minimal ISOs and PXE kernel
//                                          lines name (rootfs tokens: it opens nothing else)
//   GET /pxe/{token}/initrd | vmlinuz | ipxe
// {token} is a download token everywhere but under /rootfs/ (lib/auth/token.h).
//   GET /health                           200 while the process runs
//   GET /ready                            200 once every base image is usable, else 503

#ifndef ASSISTED_SERVICES_IMAGE_HTTP_ROUTES_H_
#define ASSISTED_SERVICES_IMAGE_HTTP_ROUTES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "lib/http/router.h"
#include "lib/time/clock.h"
#include "services/image/catalog.h"
#include "services/image/publisher.h"

namespace assisted::image {

// The routes; `publisher`, `catalog` and `clock` must outlive the router.
absl::StatusOr<http::Router> DownloadRoutes(const Publisher& publisher, const Catalog& catalog,
                                            const Clock& clock);

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_HTTP_ROUTES_H_
