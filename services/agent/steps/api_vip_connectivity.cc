// File: services/agent/steps/api_vip_connectivity.cc

#include "services/agent/steps/api_vip_connectivity.h"

#include <curl/curl.h>

#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent::steps {
namespace {

using nlohmann::json;

constexpr size_t kMaxConfigBytes = 8 << 20;

struct Request {
  std::string url;
  std::string ca_pem;  // decoded
  std::string token;
};

absl::StatusOr<Request> ParseRequest(const Step& step) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json args, JsonArg(step, 0, JsonKind::kObject));
  Request r;
  ASSIGN_OR_RETURN(r.url, StringField(args, "url", Need::kRequired, 2048));
  if (!absl::StartsWith(r.url, "http://") && !absl::StartsWith(r.url, "https://")) {
    return absl::InvalidArgumentError("url must be http:// or https://");
  }
  ASSIGN_OR_RETURN(std::string ca, StringField(args, "ca_certificate", Need::kOptional, 1 << 20));
  if (!ca.empty() && !absl::Base64Unescape(ca, &r.ca_pem)) {
    return absl::InvalidArgumentError("ca_certificate is not base64");
  }
  ASSIGN_OR_RETURN(r.token,
                   StringField(args, "ignition_endpoint_token", Need::kOptional, 16 << 10));
  return r;
}

// "host" of "scheme://host[:port]/path" ("[v6]" brackets dropped).
std::string HostOf(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (absl::StartsWith(rest, "[")) return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

size_t AppendBounded(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * count > kMaxConfigBytes) return 0;  // aborts the transfer
  body->append(data, size * count);
  return size * count;
}

int AbortIfCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const StepContext*>(user)->cancelled() ? 1 : 0;
}

// Fetches the config; its body on a 200, else why not.
absl::StatusOr<std::string> Fetch(const Request& request, absl::Duration timeout,
                                  const StepContext& context) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle(curl_easy_init(), &curl_easy_cleanup);
  if (handle == nullptr) return absl::InternalError("libcurl could not start");
  CURL* h = handle.get();
  std::string body;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "assisted-agent");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, AppendBounded);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, AbortIfCancelled);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &context);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_blob ca{};
  if (!request.ca_pem.empty()) {
    ca.data = const_cast<char*>(request.ca_pem.data());
    ca.len = request.ca_pem.size();
    ca.flags = CURL_BLOB_COPY;
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
  }
  struct curl_slist* headers =
      curl_slist_append(nullptr, "Accept: application/vnd.coreos.ignition+json; version=3.2.0");
  if (!request.token.empty()) {
    headers = curl_slist_append(headers, ("Authorization: Bearer " + request.token).c_str());
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(h);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    return absl::UnavailableError(error[0] != '\0' ? error : curl_easy_strerror(code));
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return absl::UnavailableError(absl::StrCat("HTTP status ", status));
  return body;
}

}  // namespace

StepResult ApiVipConnectivityCheck::Run(const Step& step, StepContext& context) {
  absl::StatusOr<Request> request = ParseRequest(step);
  if (!request.ok()) return InvalidArgsResult(request.status());
  absl::StatusOr<std::string> body;
  if (context.simulation != nullptr) {
    const std::string host = HostOf(request->url);
    const bool resolves =
        context.simulation->resolve && !context.simulation->resolve(host).ipv4.empty();
    body = resolves ? absl::StatusOr<std::string>(R"({"ignition":{"version":"3.2.0"}})")
                    : absl::UnavailableError(absl::StrCat("Could not resolve host: ", host));
  } else {
    body = Fetch(*request, context.Budget(options_.timeout), context);
  }
  StepResult result = SuccessResult();
  types::v1::ApiVipConnectivityResponse& report = *result.mutable_api_vip_connectivity();
  report.set_url(request->url);
  if (!body.ok()) {
    report.set_download_error(std::string(body.status().message()));
  } else {
    const json config = json::parse(*body, nullptr, /*allow_exceptions=*/false);
    const bool valid = config.is_object() && config.contains("ignition") &&
                       config["ignition"].is_object() && config["ignition"].contains("version") &&
                       config["ignition"]["version"].is_string();
    if (valid) {
      report.set_is_success(true);
      report.set_ignition(json{{"ignition", {{"version", config["ignition"]["version"]}}}}.dump());
    } else {
      report.set_download_error("the answer is not an Ignition config");
    }
  }
  context.log.Info("api vip connectivity checked",
                   {{"url", request->url}, {"success", report.is_success()}});
  return result;
}

}  // namespace assisted::agent::steps
