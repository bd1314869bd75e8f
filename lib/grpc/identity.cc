#include "lib/grpc/identity.h"

namespace assisted::grpcutil {
namespace {

bool TravelsAsIs(unsigned char c) { return c >= 0x20 && c <= 0x7e && c != '%'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The decoded metadata value under `key`, or "".
std::string Metadata(const grpc::ServerContextBase& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  if (it == metadata.end()) return "";
  return DecodeIdentityValue(absl::string_view(it->second.data(), it->second.size()));
}

}  // namespace

void SetIdentity(grpc::ClientContext& context, const Identity& identity) {
  if (!identity.user.empty()) {
    context.AddMetadata(kUserMetadata, EncodeIdentityValue(identity.user));
  }
  if (!identity.org.empty()) {
    context.AddMetadata(kOrgMetadata, EncodeIdentityValue(identity.org));
  }
}

Identity GetIdentity(const grpc::ServerContextBase& context) {
  return Identity{Metadata(context, kUserMetadata), Metadata(context, kOrgMetadata)};
}

std::string EncodeIdentityValue(absl::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(value.size());
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (TravelsAsIs(byte)) {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0xf];
    }
  }
  return encoded;
}

std::string DecodeIdentityValue(absl::string_view value) {
  std::string decoded;
  decoded.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '%' && i + 2 < value.size() && HexValue(value[i + 1]) >= 0 &&
        HexValue(value[i + 2]) >= 0) {
      decoded += static_cast<char>(HexValue(value[i + 1]) * 16 + HexValue(value[i + 2]));
      i += 2;
    } else {
      decoded += value[i];
    }
  }
  return decoded;
}

}  // namespace assisted::grpcutil
