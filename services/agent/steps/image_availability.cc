// File: services/agent/steps/image_availability.cc

#include "services/agent/steps/image_availability.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/containers/image_reference.h"
#include "lib/containers/registries_conf.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

constexpr curl_off_t kMaxBody = 1 << 20;  // /v2/ answers are tiny; stop a runaway response

size_t CountBody(char*, size_t size, size_t count, void* user) {
  auto* total = static_cast<curl_off_t*>(user);
  *total += static_cast<curl_off_t>(size * count);
  return *total > kMaxBody ? 0 : size * count;
}

int AbortIfCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const Cancellation*>(user)->cancelled() ? 1 : 0;
}

absl::StatusOr<std::vector<std::string>> ParseImages(const Step& step,
                                                     const ImageAvailabilityOptions& options,
                                                     absl::Duration* timeout) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json request, JsonArg(step, 0, JsonKind::kObject));
  ASSIGN_OR_RETURN(json list, ArrayField(request, "images", Need::kRequired, options.max_images));
  ASSIGN_OR_RETURN(std::vector<std::string> images,
                   StringList(list, "images", options.max_images, 512));
  for (const std::string& image : images) RETURN_IF_ERROR(containers::RegistryOf(image).status());
  ASSIGN_OR_RETURN(std::optional<double> seconds, NumberField(request, "timeout", Need::kOptional));
  if (seconds.has_value() && !(*seconds > 0 && *seconds <= 24 * 3600)) {
    return absl::InvalidArgumentError("\"timeout\" must be between 0 and 86400 seconds");
  }
  *timeout = seconds.has_value() ? absl::Seconds(*seconds) : options.default_timeout;
  return images;
}

}  // namespace

RegistryAnswer ProbeRegistry(const std::string& url, absl::Duration timeout,
                             const std::string& ca_bundle, const Cancellation& cancellation) {
  RegistryAnswer answer;
  if (timeout <= absl::ZeroDuration()) {
    answer.error = "no time left";
    return answer;
  }
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (curl == nullptr) {
    answer.error = "cannot initialise libcurl";
    return answer;
  }
  CURL* h = curl.get();
  curl_off_t body = 0;
  char error[CURL_ERROR_SIZE] = "";
  const long millis = std::max<long>(1, static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, millis);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "assisted-agent");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, CountBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, AbortIfCancelled);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &cancellation);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  if (!ca_bundle.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca_bundle.c_str());

  const CURLcode code = curl_easy_perform(h);
  long status = 0;
  long header_bytes = 0;
  curl_off_t total_us = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &header_bytes);
  curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total_us);
  answer.time = absl::Microseconds(total_us);
  answer.bytes = static_cast<int64_t>(header_bytes) + static_cast<int64_t>(body);
  if (code != CURLE_OK) {
    answer.error = error[0] != '\0' ? error : curl_easy_strerror(code);
    return answer;
  }
  answer.http_status = status;
  curl_off_t pretransfer_us = 0;
  curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
  answer.transfer_time = absl::Microseconds(total_us - pretransfer_us);
  return answer;
}

absl::StatusOr<std::vector<containers::MirrorRule>> ReadMirrorRules(const std::string& path) {
  std::error_code error;
  if (path.empty() || !std::filesystem::exists(path, error)) {
    return std::vector<containers::MirrorRule>{};
  }
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path, "registries.conf"));
  absl::StatusOr<std::vector<containers::MirrorRule>> rules = containers::ParseRegistriesConf(text);
  if (!rules.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", rules.status().message()));
  }
  return rules;
}

ImageLookUp LookUpImage(const std::string& image, const std::vector<containers::MirrorRule>& rules,
                        const ImageAvailabilityOptions& options,
                        const std::function<absl::Duration()>& budget,
                        const Cancellation& cancellation) {
  ImageLookUp found;
  for (const std::string& reference : containers::PullReferences(image, rules)) {
    const absl::StatusOr<std::string> registry = containers::RegistryOf(reference);
    if (!registry.ok()) {
      found.answer = RegistryAnswer{.error = std::string(registry.status().message())};
      continue;
    }
    const std::string scheme =
        options.plain_http_registries.count(*registry) > 0 ? "http" : "https";
    found.answer = ProbeRegistry(absl::StrCat(scheme, "://", *registry, "/v2/"), budget(),
                                 options.ca_bundle, cancellation);
    found.reference = reference;
    if (found.answer.http_status == 200 || found.answer.http_status == 401) break;
  }
  return found;
}

StepResult ImageAvailability::Run(const Step& step, StepContext& context) {
  absl::Duration shared = absl::ZeroDuration();
  absl::StatusOr<std::vector<std::string>> images = ParseImages(step, options_, &shared);
  if (!images.ok()) return InvalidArgsResult(images.status());
  const absl::Time shared_deadline = context.clock.Now() + shared;

  StepResult result = SuccessResult();
  types::v1::ContainerImageAvailabilityResponse& report = *result.mutable_image_availability();
  const absl::StatusOr<std::vector<containers::MirrorRule>> rules =
      context.simulation != nullptr ? std::vector<containers::MirrorRule>{}
                                    : ReadMirrorRules(options_.registries_conf);
  if (!rules.ok()) {
    context.log.Info("no image can be pulled", {{"error", std::string(rules.status().message())}});
  }
  bool all_ok = true;
  for (const std::string& image : *images) {
    if (context.cancelled()) return FailureResult(kExitInvalid, "image check cancelled");
    RegistryAnswer answer;
    std::string answered_by;
    if (context.simulation != nullptr) {
      if (context.simulation->registry) answer = context.simulation->registry(image);
    } else if (!rules.ok()) {
      answer.error = std::string(rules.status().message());
    } else {
      ImageLookUp found = LookUpImage(
          image, *rules, options_,
          [&] {
            return std::min(context.Budget(options_.request_timeout),
                            shared_deadline - context.clock.Now());
          },
          context.cancellation);
      answer = std::move(found.answer);
      answered_by = std::move(found.reference);
    }
    const bool ok = answer.http_status == 200 || answer.http_status == 401;
    all_ok = all_ok && ok;
    if (!ok) {
      context.log.Info("registry not reachable",
                       {{"image", image}, {"status", answer.http_status}, {"error", answer.error}});
    } else if (!answered_by.empty() && answered_by != image) {
      context.log.Info("image available through a mirror",
                       {{"image", image}, {"reference", answered_by}});
    }
    const double transfer = absl::ToDoubleSeconds(
        answer.transfer_time > absl::ZeroDuration() ? answer.transfer_time : answer.time);
    types::v1::ContainerImageAvailability& pulled = *report.add_images();
    pulled.set_name(image);
    pulled.set_result(ok ? "success" : "failure");
    pulled.set_size_bytes(static_cast<double>(answer.bytes));
    pulled.set_time(absl::ToDoubleSeconds(answer.time));
    pulled.set_download_rate(transfer > 0 ? answer.bytes / transfer / 1e6 : 0.0);
  }
  if (!all_ok) {
    result.set_exit_code(2);  // the reference agent's "some image failed"; the report stays
    result.set_error("some registries are not reachable");
  }
  return result;
}

}  // namespace assisted::agent::steps
