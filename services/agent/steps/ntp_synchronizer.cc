// File: services/agent/steps/ntp_synchronizer.cc

#include "services/agent/steps/ntp_synchronizer.h"

#include <netdb.h>
#include <sys/socket.h>

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/net/ip.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/parallel.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

absl::string_view StateOf(char c) {
  switch (c) {
    case '*':
      return "synced";
    case '+':
      return "combined";
    case '-':
      return "not_combined";
    case '?':
      return "unreachable";
    case '~':
      return "variable";
    default:
      return "error";  // 'x' (falseticker) and anything unknown
  }
}

absl::StatusOr<std::vector<std::string>> ParseRequested(const Step& step, size_t max_sources) {
  RETURN_IF_ERROR(CheckArgCount(step, 0, 1));
  std::vector<std::string> out;
  if (step.args_size() == 0) return out;
  ASSIGN_OR_RETURN(json request, JsonArg(step, 0, JsonKind::kObject));
  ASSIGN_OR_RETURN(std::string list, StringField(request, "ntp_source", Need::kOptional, 4096));
  for (absl::string_view s : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    s = absl::StripAsciiWhitespace(s);
    RETURN_IF_ERROR(CheckHostName(s, "NTP source"));
    out.emplace_back(s);
  }
  if (out.size() > max_sources) {
    return absl::InvalidArgumentError(
        absl::StrCat(out.size(), " NTP sources, at most ", max_sources));
  }
  return out;
}

// The addresses `name` stands for, as canonical text (itself when it is a literal).
std::set<std::string> AddressesOf(const std::string& name) {
  std::set<std::string> out;
  if (absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(name); ip.ok()) {
    out.insert(ip->ToString());
    return out;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0) return out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char host[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) ==
        0) {
      if (absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(host); ip.ok()) {
        out.insert(ip->ToString());
      }
    }
  }
  freeaddrinfo(found);
  return out;
}

StepResult Output(const std::vector<NtpSourceState>& sources) {
  StepResult result = SuccessResult();
  for (const NtpSourceState& s : sources) {
    types::v1::NtpSource& source = *result.mutable_ntp_synchronization()->add_ntp_sources();
    source.set_source_name(s.name);
    source.set_source_state(s.state);
  }
  result.mutable_ntp_synchronization();  // set even when no source answered
  return result;
}

}  // namespace

std::vector<NtpSourceState> ParseChronySources(absl::string_view csv) {
  std::vector<NtpSourceState> out;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipWhitespace())) {
    // Mode, state, name/address, stratum, poll, reach, last rx, offsets...
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() < 3 || fields[1].size() != 1 || fields[2].empty()) continue;
    out.push_back({std::string(fields[2]), std::string(StateOf(fields[1][0]))});
  }
  return out;
}

absl::StatusOr<std::vector<NtpSourceState>> NtpSynchronizer::FromChrony(
    const std::vector<std::string>& requested, StepContext& context) const {
  auto chronyc = [&](std::vector<std::string> args) -> absl::StatusOr<process::CommandResult> {
    args.insert(args.begin(), options_.chronyc);
    return context.processes.Run(
        {.argv = std::move(args), .timeout = context.Budget(options_.command_timeout)});
  };
  auto sources = [&]() -> absl::StatusOr<std::vector<NtpSourceState>> {
    ASSIGN_OR_RETURN(process::CommandResult r, chronyc({"-c", "-n", "sources"}));
    if (!r.ok()) {
      return absl::UnavailableError(
          absl::StrCat("chronyc sources exited ", r.exit_code, ": ", r.stderr_data));
    }
    return ParseChronySources(r.stdout_data);
  };
  ASSIGN_OR_RETURN(std::vector<NtpSourceState> known, sources());
  std::set<std::string> known_addresses;
  for (const NtpSourceState& s : known) {
    if (absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(s.name); ip.ok()) {
      known_addresses.insert(ip->ToString());
    }
  }
  bool added = false;
  for (const std::string& source : requested) {
    bool present = false;
    for (const std::string& a : AddressesOf(source)) present = present || known_addresses.count(a);
    if (present) continue;
    ASSIGN_OR_RETURN(process::CommandResult r, chronyc({"add", "server", source, "iburst"}));
    if (!r.ok()) {
      context.log.Warning("chronyc add server failed",
                          {{"source", source}, {"stderr", r.stderr_data}});
    }
    added = true;
  }
  if (!added) return known;
  return sources();
}

std::vector<NtpSourceState> NtpSynchronizer::FromSntp(const std::vector<std::string>& requested,
                                                      StepContext& context) const {
  const std::vector<std::string>& servers =
      requested.empty() ? options_.default_servers : requested;
  std::vector<NtpSourceState> out(servers.size());
  ParallelFor(servers.size(), 8, [&](size_t i) {
    out[i].name = servers[i];
    absl::StatusOr<SntpAnswer> answer = QuerySntp(
        servers[i], options_.sntp_port, context.Budget(options_.sntp_timeout), context.clock);
    if (!answer.ok()) {
      context.log.Info("NTP source unreachable",
                       {{"source", servers[i]}, {"error", answer.status().message()}});
      out[i].state = "unreachable";
    } else {
      out[i].state =
          absl::AbsDuration(answer->offset) <= options_.max_offset ? "synced" : "not_combined";
    }
  });
  return out;
}

StepResult NtpSynchronizer::Run(const Step& step, StepContext& context) {
  absl::StatusOr<std::vector<std::string>> requested = ParseRequested(step, options_.max_sources);
  if (!requested.ok()) return InvalidArgsResult(requested.status());
  if (context.simulation != nullptr) {
    const auto& hook = context.simulation->ntp;
    return Output(hook ? hook(*requested) : std::vector<NtpSourceState>());
  }
  absl::StatusOr<std::vector<NtpSourceState>> chrony = FromChrony(*requested, context);
  if (chrony.ok()) return Output(*chrony);
  context.log.Info("chrony not usable; querying sources over SNTP",
                   {{"reason", chrony.status().message()}});
  return Output(FromSntp(*requested, context));
}

}  // namespace assisted::agent::steps
