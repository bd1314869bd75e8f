#include "lib/grpc/identity.h"

#include <memory>
#include <string>

#include "assisted/testing/v1/echo.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace assisted::grpcutil {
namespace {

namespace echo = assisted::testing::v1;

// Answers every call with the identity it read from the call's metadata, as "user|org".
class IdentityEcho final : public echo::EchoService::Service {
  grpc::Status Echo(grpc::ServerContext* context, const echo::EchoRequest*,
                    echo::EchoResponse* response) override {
    const Identity identity = GetIdentity(*context);
    response->set_message(identity.user + "|" + identity.org);
    return grpc::Status::OK;
  }
};

class IdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = echo::EchoService::NewStub(server_->InProcessChannel(grpc::ChannelArguments()));
  }
  void TearDown() override { server_->Shutdown(); }

  // What the server reads back of `identity` sent as call metadata ("user|org").
  std::string RoundTrip(const Identity& identity) {
    grpc::ClientContext context;
    SetIdentity(context, identity);
    echo::EchoRequest request;
    echo::EchoResponse response;
    const grpc::Status status = stub_->Echo(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.message();
  }

  IdentityEcho service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<echo::EchoService::Stub> stub_;
};

TEST_F(IdentityTest, PlainAsciiNamesTravelUnchanged) {
  EXPECT_EQ(RoundTrip({"alice", "acme"}), "alice|acme");
  EXPECT_EQ(EncodeIdentityValue("alice@example.com"), "alice@example.com");
}

TEST_F(IdentityTest, NonAsciiNamesRoundTripWithoutAbortingTheCaller) {
  EXPECT_EQ(RoundTrip({"José", "Société Générale"}), "José|Société Générale");
  EXPECT_EQ(RoundTrip({"用户", ""}), "用户|");
}

TEST_F(IdentityTest, ControlCharactersAndPercentSignsRoundTrip) {
  EXPECT_EQ(RoundTrip({"tab\there", "new\nline"}), "tab\there|new\nline");
  // A literal "%41" must come back as itself, not as the "A" it would decode to.
  EXPECT_EQ(RoundTrip({"100%", "%41"}), "100%|%41");
  EXPECT_EQ(RoundTrip({std::string("nul\0byte", 8), "\x7f"}), std::string("nul\0byte|\x7f", 10));
}

TEST(IdentityEncoding, EncodedValuesAreLegalMetadata) {
  // gRPC refuses (and the C++ API aborts on) metadata values outside printable ASCII.
  for (const std::string& value :
       {std::string("José"), std::string("\x01\x1f\x7f\x80\xff"), std::string("a b%c")}) {
    const std::string encoded = EncodeIdentityValue(value);
    for (char c : encoded) {
      EXPECT_TRUE(c >= 0x20 && c <= 0x7e)
          << "byte " << int(static_cast<unsigned char>(c)) << " in " << encoded;
    }
    EXPECT_EQ(DecodeIdentityValue(encoded), value);
  }
  EXPECT_EQ(EncodeIdentityValue("José"), "Jos%C3%A9");
}

TEST(IdentityEncoding, MalformedEscapesDecodeAsTheyWereSent) {
  // Only the project's own services send identities, always encoded; a stray '%' from an older
  // sender is kept rather than guessed at.
  EXPECT_EQ(DecodeIdentityValue("50%off"), "50%off");
  EXPECT_EQ(DecodeIdentityValue("trailing%"), "trailing%");
  EXPECT_EQ(DecodeIdentityValue("half%4"), "half%4");
}

}  // namespace
}  // namespace assisted::grpcutil
