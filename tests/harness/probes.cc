#include "tests/harness/probes.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "curl/curl.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "lib/grpc/health_client.h"
#include "lib/status/grpc_status.h"

namespace assisted::testing {
namespace {

std::shared_ptr<grpc::Channel> Channel(const std::string& target) {
  return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
}

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)));
}

size_t AppendBody(char* data, size_t size, size_t count, void* body) {
  static_cast<std::string*>(body)->append(data, size * count);
  return size * count;
}

}  // namespace

absl::StatusOr<std::string> CheckHealth(const std::string& target, const std::string& service,
                                        absl::Duration timeout) {
  return grpcutil::CheckHealth(Channel(target), service, timeout);
}

absl::StatusOr<std::vector<std::string>> ListServices(const std::string& target,
                                                      absl::Duration timeout) {
  using grpc::reflection::v1alpha::ServerReflection;
  using grpc::reflection::v1alpha::ServerReflectionRequest;
  using grpc::reflection::v1alpha::ServerReflectionResponse;
  auto stub = ServerReflection::NewStub(Channel(target));
  grpc::ClientContext context;
  SetDeadline(context, timeout);
  auto stream = stub->ServerReflectionInfo(&context);
  ServerReflectionRequest request;
  request.set_list_services("*");
  ServerReflectionResponse response;
  if (!stream->Write(request) || !stream->WritesDone() || !stream->Read(&response)) {
    return FromGrpcStatus(stream->Finish());
  }
  std::vector<std::string> names;
  for (const auto& service : response.list_services_response().service()) {
    names.push_back(service.name());
  }
  const grpc::Status finished = stream->Finish();
  if (!finished.ok()) return FromGrpcStatus(finished);
  return names;
}

absl::StatusOr<HttpResponse> HttpGet(const std::string& url, absl::Duration timeout) {
  return HttpRequest("GET", url, {}, timeout);
}

double MetricSum(const std::string& metrics_url, const std::string& name,
                 const std::string& labels) {
  absl::StatusOr<HttpResponse> metrics = HttpGet(metrics_url);
  if (!metrics.ok() || metrics->status != 200) return -1;
  double sum = 0;
  bool found = false;
  for (absl::string_view line : absl::StrSplit(metrics->body, '\n')) {
    // "name value" or "name{label="x",...} value"
    if (!absl::ConsumePrefix(&line, name) || line.empty() || (line[0] != ' ' && line[0] != '{')) {
      continue;
    }
    const size_t value_at = line.rfind(' ');
    double value = 0;
    if (!absl::StrContains(line.substr(0, value_at), labels) ||
        !absl::SimpleAtod(line.substr(value_at + 1), &value)) {
      continue;
    }
    sum += value;
    found = true;
  }
  return found ? sum : -1;
}

absl::StatusOr<HttpResponse> HttpRequest(const std::string& method, const std::string& url,
                                         const std::vector<std::string>& headers,
                                         absl::Duration timeout) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  HttpResponse response;
  std::string raw_headers;
  curl_slist* list = nullptr;
  for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &raw_headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(list);
  if (code != CURLE_OK) {
    curl_easy_cleanup(curl);
    return absl::UnavailableError(absl::StrCat(method, " ", url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type != nullptr) response.content_type = content_type;
  curl_easy_cleanup(curl);
  for (absl::string_view line : absl::StrSplit(raw_headers, "\r\n", absl::SkipEmpty())) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    response.headers[absl::AsciiStrToLower(line.substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return response;
}

namespace {

// Whether `port` on 127.0.0.1 can be bound now.
bool Bindable(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));  // as the services bind
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return bound;
}

// The first port of the kernel's ephemeral range (32768 unless configured otherwise).
int EphemeralLow() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  return range >> low && low > 12000 ? low : 32768;
}

}  // namespace

absl::StatusOr<int> FreePort() {
  constexpr int kLowest = 10000;
  static const int span = EphemeralLow() - kLowest;
  // Where this process's walk through the range starts, and how far it got.
  static const int start = static_cast<int>(std::random_device{}() % span);
  static std::atomic<int> taken{0};
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = kLowest + (start + taken.fetch_add(1)) % span;
    if (Bindable(port)) return port;
  }
  return absl::InternalError("no bindable port below the ephemeral range after 200 tries");
}

std::string RunfilePath(const std::string& workspace_relative) {
  // Under `bazel test` TEST_SRCDIR names the runfiles tree; a binary run by hand (benches) finds
  // it beside itself as <binary>.runfiles.
  std::string root;
  if (const char* srcdir = std::getenv("TEST_SRCDIR"); srcdir != nullptr) {
    root = srcdir;
  } else if (const char* runfiles = std::getenv("RUNFILES_DIR"); runfiles != nullptr) {
    root = runfiles;
  } else {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
    root = length > 0 ? std::string(self, length) + ".runfiles" : ".";
  }
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(root, "/", workspace != nullptr ? workspace : "assisted", "/",
                      workspace_relative);
}

bool WaitServing(const std::string& target, const std::string& service, absl::Duration timeout,
                 const grpcutil::ChannelOptions& channel) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> made = grpcutil::MakeChannel(target, channel);
  if (!made.ok()) return false;
  auto stub = grpc::health::v1::Health::NewStub(*made);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  auto reader = stub->Watch(&context, request);
  grpc::health::v1::HealthCheckResponse response;
  while (reader->Read(&response)) {
    if (response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
      context.TryCancel();
      reader->Finish();
      return true;
    }
  }
  reader->Finish();
  return false;
}

}  // namespace assisted::testing
