// File: fuzz/json_model_fuzzer.cc
//
// REST request bodies as the gateway decodes them (services/gateway/json_model.h): ParseObject,
// then FromJson into a cluster, infra-env or host for a create or an update, then the decoded
// message shown again with ToJson and Dump, as a response would. A first byte chooses the model
// and the use; the rest is the body.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fuzz/fuzz_input.h"
#include "google/protobuf/message.h"
#include "services/gateway/json_model.h"

namespace {

namespace gateway = assisted::gateway;

const gateway::Model& ModelFor(uint8_t choice) {
  switch (choice % 3) {
    case 0:
      return gateway::ClusterModel();
    case 1:
      return gateway::InfraEnvModel();
    default:
      return gateway::HostModel();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  assisted::fuzz::FuzzInput in(data, size);
  const uint8_t choice = in.Byte();
  const gateway::Model& model = ModelFor(choice);
  const gateway::FieldUse use = (choice / 3) % 2 == 0 ? gateway::kCreate : gateway::kUpdate;
  absl::StatusOr<gateway::Json> body = gateway::ParseObject(in.Rest());
  if (!body.ok()) return 0;
  std::unique_ptr<google::protobuf::Message> message(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(model.descriptor)->New());
  if (!gateway::FromJson(model, *body, use, message.get()).ok()) return 0;
  (void)gateway::Dump(gateway::ToJson(model, *message));
  return 0;
}
