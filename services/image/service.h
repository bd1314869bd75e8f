// File: services/image/service.h
//
// The gRPC face of the image service (assisted.image.v1.ImageService): download URLs, the
// discovery Ignition, iPXE scripts, the base-image catalog and the static-network files. Bytes go
// over HTTP, never here.

#ifndef ASSISTED_SERVICES_IMAGE_SERVICE_H_
#define ASSISTED_SERVICES_IMAGE_SERVICE_H_

#include "assisted/image/v1/image_service.grpc.pb.h"
#include "lib/time/clock.h"
#include "services/image/catalog.h"
#include "services/image/publisher.h"

namespace assisted::image {

class ImageServiceImpl final : public v1::ImageService::Service {
 public:
  ImageServiceImpl(const Publisher& publisher, const Catalog& catalog, const Clock& clock)
      : publisher_(publisher), catalog_(catalog), clock_(clock) {}

  grpc::Status GetDiscoveryIgnition(grpc::ServerContext* context,
                                    const v1::GetDiscoveryIgnitionRequest* request,
                                    v1::GetDiscoveryIgnitionResponse* response) override;
  grpc::Status GetImageUrl(grpc::ServerContext* context, const v1::GetImageUrlRequest* request,
                           v1::GetImageUrlResponse* response) override;
  grpc::Status GetIpxeScript(grpc::ServerContext* context, const v1::GetIpxeScriptRequest* request,
                             v1::GetIpxeScriptResponse* response) override;
  grpc::Status ListBaseImages(grpc::ServerContext* context,
                              const v1::ListBaseImagesRequest* request,
                              v1::ListBaseImagesResponse* response) override;
  grpc::Status GetStaticNetworkConfig(grpc::ServerContext* context,
                                      const v1::GetStaticNetworkConfigRequest* request,
                                      v1::GetStaticNetworkConfigResponse* response) override;
  grpc::Status GetMinimalInitrd(grpc::ServerContext* context,
                                const v1::GetMinimalInitrdRequest* request,
                                v1::GetMinimalInitrdResponse* response) override;

 private:
  const Publisher& publisher_;
  const Catalog& catalog_;
  const Clock& clock_;
};

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_SERVICE_H_
