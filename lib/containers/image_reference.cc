// File: lib/containers/image_reference.cc

#include "lib/containers/image_reference.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/net/ip.h"

namespace assisted::containers {
namespace {

constexpr char kDockerHub[] = "registry-1.docker.io";

// "host", "host:port" or "[v6]:port", host being letters, digits, '.' and '-'.
bool ValidRegistry(absl::string_view registry) {
  absl::string_view host = registry;
  absl::string_view port;
  if (absl::ConsumePrefix(&host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return false;
    port = host.substr(close + 1);
    host = host.substr(0, close);
    if (!net::IpAddress::Parse(host).ok()) return false;
    if (!port.empty() && !absl::ConsumePrefix(&port, ":")) return false;
  } else {
    const size_t colon = host.find(':');
    if (colon != absl::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
      if (port.empty()) return false;
    }
    if (host.empty() || !std::all_of(host.begin(), host.end(), [](char c) {
          return absl::ascii_isalnum(c) || c == '.' || c == '-';
        })) {
      return false;
    }
  }
  return port.size() <= 5 && std::all_of(port.begin(), port.end(), absl::ascii_isdigit);
}

}  // namespace

absl::StatusOr<std::string> RegistryOf(absl::string_view image) {
  const bool ok =
      !image.empty() && image.size() <= 512 && std::all_of(image.begin(), image.end(), [](char c) {
        return absl::ascii_isalnum(c) ||
               absl::string_view("._-/:@[]").find(c) != absl::string_view::npos;
      });
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", image.substr(0, 64), "\" is not an image reference"));
  }
  const size_t slash = image.find('/');
  if (slash == absl::string_view::npos) return std::string(kDockerHub);
  const absl::string_view first = image.substr(0, slash);
  // As the container tools decide: a first component with a dot or a port, or "localhost",
  // names a registry; anything else is a Docker Hub namespace.
  if (first.find_first_of(".:[") == absl::string_view::npos && first != "localhost") {
    return std::string(kDockerHub);
  }
  if (!ValidRegistry(first) || image.find("//") != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", image.substr(0, 64), "\" does not start with a registry host[:port]"));
  }
  return std::string(first);
}

bool PullsByDigest(absl::string_view image) {
  const size_t at = image.rfind('@');
  return at != absl::string_view::npos && absl::StrContains(image.substr(at), ':');
}

}  // namespace assisted::containers
