// File: services/agent/steps/domain_resolution.cc

#include "services/agent/steps/domain_resolution.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "lib/net/ip.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/parallel.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

void AddOnce(std::vector<std::string>& list, std::string value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

absl::StatusOr<std::vector<std::string>> ParseDomains(const Step& step, size_t max_domains) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json request, JsonArg(step, 0, JsonKind::kObject));
  ASSIGN_OR_RETURN(json domains, ArrayField(request, "domains", Need::kRequired, max_domains));
  std::vector<std::string> out;
  for (const json& d : domains) {
    ASSIGN_OR_RETURN(std::string name, StringField(d, "domain_name", Need::kRequired, 253));
    RETURN_IF_ERROR(CheckHostName(name, "domain_name", /*allow_wildcard=*/true));
    out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

ResolvedName ResolveName(const std::string& name) {
  ResolvedName out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;  // one entry per address instead of one per socket type
  hints.ai_flags = AI_CANONNAME;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0) return out;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, &freeaddrinfo);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char host[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) !=
        0) {
      continue;
    }
    absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(host);
    if (!ip.ok()) continue;  // e.g. a scoped link-local address "fe80::1%eth0"
    AddOnce(ip->family() == net::Family::kIpv4 ? out.ipv4 : out.ipv6, ip->ToString());
  }
  if (found->ai_canonname != nullptr) {
    absl::string_view canonical = absl::StripSuffix(found->ai_canonname, ".");
    if (!absl::EqualsIgnoreCase(canonical, absl::StripSuffix(name, "."))) {
      out.cnames.emplace_back(canonical);
    }
  }
  return out;
}

StepResult DomainResolution::Run(const Step& step, StepContext& context) {
  absl::StatusOr<std::vector<std::string>> names = ParseDomains(step, options_.max_domains);
  if (!names.ok()) return InvalidArgsResult(names.status());
  std::vector<ResolvedName> resolved(names->size());
  ParallelFor(names->size(), options_.max_parallel, [&](size_t i) {
    if (context.cancelled()) return;
    if (context.simulation == nullptr) {
      resolved[i] = ResolveName((*names)[i]);
    } else if (context.simulation->resolve) {
      resolved[i] = context.simulation->resolve((*names)[i]);
    }
  });
  if (context.cancelled()) return FailureResult(kExitInvalid, "domain resolution cancelled");
  StepResult result = SuccessResult();
  types::v1::DomainResolutionResponse& report = *result.mutable_domain_resolution();
  for (size_t i = 0; i < names->size(); ++i) {
    types::v1::DomainResolution& resolution = *report.add_resolutions();
    resolution.set_domain_name((*names)[i]);
    resolution.mutable_ipv4_addresses()->Add(resolved[i].ipv4.begin(), resolved[i].ipv4.end());
    resolution.mutable_ipv6_addresses()->Add(resolved[i].ipv6.begin(), resolved[i].ipv6.end());
    resolution.mutable_cnames()->Add(resolved[i].cnames.begin(), resolved[i].cnames.end());
  }
  return result;
}

}  // namespace assisted::agent::steps
