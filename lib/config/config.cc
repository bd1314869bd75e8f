#include "lib/config/config.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace assisted::config {
namespace {

std::string Quote(absl::string_view text) { return absl::StrCat("\"", text, "\""); }

std::string EnvName(absl::string_view prefix, absl::string_view flag) {
  std::string name = absl::StrCat(prefix, flag);
  for (char& c : name) c = c == '-' ? '_' : absl::ascii_toupper(c);
  return name;
}

absl::Status Prefixed(absl::string_view source, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", status.message()));
}

}  // namespace

Environment ProcessEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    absl::string_view text(*entry);
    const size_t eq = text.find('=');
    if (eq == absl::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

absl::Status ParseValue(absl::string_view text, std::string* out) {
  *out = std::string(text);
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view text, int* out) {
  if (!absl::SimpleAtoi(text, out)) {
    return absl::InvalidArgumentError(absl::StrCat(Quote(text), " is not an integer"));
  }
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view text, int64_t* out) {
  if (!absl::SimpleAtoi(text, out)) {
    return absl::InvalidArgumentError(absl::StrCat(Quote(text), " is not an integer"));
  }
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view text, bool* out) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "true" || lower == "1" || lower == "yes") {
    *out = true;
  } else if (lower == "false" || lower == "0" || lower == "no") {
    *out = false;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(Quote(text), " is not a boolean (true/false)"));
  }
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view text, absl::Duration* out) {
  if (!absl::ParseDuration(text, out) || *out < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(text), " is not a duration (like 30s, 5m, 1h30m)"));
  }
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view text, std::vector<std::string>* out) {
  out->clear();
  if (text.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    out->emplace_back(absl::StripAsciiWhitespace(item));
  }
  return absl::OkStatus();
}

std::string FormatValue(const std::string& value) { return Quote(value); }
std::string FormatValue(int value) { return absl::StrCat(value); }
std::string FormatValue(int64_t value) { return absl::StrCat(value); }
std::string FormatValue(bool value) { return value ? "true" : "false"; }
std::string FormatValue(absl::Duration value) { return absl::FormatDuration(value); }
std::string FormatValue(const std::vector<std::string>& value) {
  return Quote(absl::StrJoin(value, ","));
}

absl::Status HostPort(const std::string& value) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(Quote(value), " is not host:port"));
  }
  absl::string_view host = absl::string_view(value).substr(0, colon);
  if (absl::StrContains(host, ':') && !(absl::StartsWith(host, "[") && absl::EndsWith(host, "]"))) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(value), " is not host:port (write IPv6 hosts as [addr]:port)"));
  }
  int port = 0;
  if (!absl::SimpleAtoi(absl::string_view(value).substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(value), " has no valid port (0 to 65535)"));
  }
  return absl::OkStatus();
}

absl::Status OptionalHostPort(const std::string& value) {
  return value.empty() ? absl::OkStatus() : HostPort(value);
}

absl::Status GrpcTarget(const std::string& value) {
  const auto refuse = [&value](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(value), " is not a gRPC target (host:port, dns:///host:port, ",
                     "ipv4:///a.b.c.d:port,... or ipv6:///[addr]:port,...): ", why));
  };
  absl::string_view rest = value;
  bool list = false;
  if (absl::ConsumePrefix(&rest, "dns:")) {
    if (!absl::ConsumePrefix(&rest, "///")) return refuse("write dns:///host:port");
  } else if (absl::ConsumePrefix(&rest, "ipv4:") || absl::ConsumePrefix(&rest, "ipv6:")) {
    absl::ConsumePrefix(&rest, "///");
    list = true;
  } else if (absl::StrContains(rest, "://") || absl::StartsWith(rest, "unix:")) {
    return refuse("unsupported scheme");
  }
  const std::vector<std::string> addresses =
      list ? absl::StrSplit(rest, ',') : std::vector<std::string>{std::string(rest)};
  for (const std::string& address : addresses) {
    if (absl::Status host_port = HostPort(address); !host_port.ok()) {
      return refuse(host_port.message());
    }
    if (absl::StartsWith(address, ":")) return refuse(absl::StrCat(Quote(address), " has no host"));
    const bool bracketed = absl::StartsWith(address, "[");  // an IPv6 address
    if (list && bracketed != absl::StartsWith(value, "ipv6:")) {
      return refuse(absl::StrCat(Quote(address), " is not of the list's address family"));
    }
  }
  return absl::OkStatus();
}

absl::Status Uuid(const std::string& value) {
  static constexpr absl::string_view kLayout = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  bool valid = value.size() == kLayout.size();
  for (size_t i = 0; valid && i < value.size(); ++i) {
    valid = kLayout[i] == '-' ? value[i] == '-' : absl::ascii_isxdigit(value[i]);
  }
  if (!valid) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(value), " is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"));
  }
  return absl::OkStatus();
}

absl::Status OptionalUuid(const std::string& value) {
  return value.empty() ? absl::OkStatus() : Uuid(value);
}

Parser::Parser(std::string program, std::string summary, std::string env_prefix)
    : program_(std::move(program)),
      summary_(std::move(summary)),
      env_prefix_(std::move(env_prefix)) {}

template <typename T>
TypedSetting<T>& Parser::Add(absl::string_view name, T* target, absl::string_view help,
                             absl::string_view value_name) {
  auto setting =
      std::make_unique<TypedSetting<T>>(std::string(name), EnvName(env_prefix_, name),
                                        std::string(help), std::string(value_name), target);
  TypedSetting<T>& ref = *setting;
  settings_.push_back(std::move(setting));
  return ref;
}

TypedSetting<std::string>& Parser::String(absl::string_view name, std::string* target,
                                          absl::string_view help) {
  return Add(name, target, help, "STRING");
}

TypedSetting<int>& Parser::Int(absl::string_view name, int* target, absl::string_view help) {
  return Add(name, target, help, "INT");
}

TypedSetting<int64_t>& Parser::Int64(absl::string_view name, int64_t* target,
                                     absl::string_view help) {
  return Add(name, target, help, "INT");
}

TypedSetting<bool>& Parser::Bool(absl::string_view name, bool* target, absl::string_view help) {
  return Add(name, target, help, "BOOL");
}

TypedSetting<absl::Duration>& Parser::Duration(absl::string_view name, absl::Duration* target,
                                               absl::string_view help) {
  return Add(name, target, help, "DURATION");
}

TypedSetting<std::vector<std::string>>& Parser::List(absl::string_view name,
                                                     std::vector<std::string>* target,
                                                     absl::string_view help) {
  return Add(name, target, help, "LIST");
}

void Parser::Positional(absl::string_view value_name, std::vector<std::string>* target,
                        Positionals mode) {
  positional_name_ = std::string(value_name);
  positional_ = target;
  positional_mode_ = mode;
}

Setting* Parser::Find(absl::string_view name) const {
  for (const auto& setting : settings_) {
    if (setting->name() == name) return setting.get();
  }
  return nullptr;
}

absl::StatusOr<Action> Parser::Parse(int argc, const char* const* argv, const Environment& env) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return Parse(args, env);
}

absl::StatusOr<Action> Parser::Parse(const std::vector<std::string>& args, const Environment& env) {
  for (const auto& setting : settings_) {
    auto it = env.find(setting->env());
    if (it == env.end()) continue;
    if (absl::Status status = setting->Set(it->second); !status.ok()) {
      return Prefixed(setting->env(),
                      setting->secret_ ? absl::InvalidArgumentError("invalid value") : status);
    }
    setting->seen_ = true;
  }

  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") return Action::kHelp;
    if (arg == "--version") return Action::kVersion;
    if (arg == "--") {
      if (positional_ == nullptr && i + 1 < args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("unexpected argument ", Quote(args[i + 1])));
      }
      for (size_t j = i + 1; j < args.size(); ++j) positional_->push_back(args[j]);
      break;
    }
    if (!absl::StartsWith(arg, "-")) {
      if (positional_ == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("unexpected argument ", Quote(arg)));
      }
      if (positional_mode_ == Positionals::kRest) {
        positional_->insert(positional_->end(), args.begin() + i, args.end());
        break;
      }
      positional_->push_back(args[i]);
      continue;
    }
    absl::string_view body = arg;
    if (!absl::ConsumePrefix(&body, "--")) absl::ConsumePrefix(&body, "-");
    absl::string_view name = body;
    absl::string_view value;
    bool has_value = false;
    if (const size_t eq = body.find('='); eq != absl::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    Setting* setting = Find(name);
    bool negated = false;
    if (setting == nullptr && absl::StartsWith(name, "no-")) {
      setting = Find(name.substr(3));
      negated = setting != nullptr && setting->IsBool() && !has_value;
      if (!negated) setting = nullptr;
    }
    if (setting == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (see --help)"));
    }
    const std::string flag = absl::StrCat("--", setting->name());
    if (negated) {
      value = "false";
    } else if (!has_value) {
      if (setting->IsBool()) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat(flag, ": missing value"));
      }
    }
    if (absl::Status status = setting->Set(value); !status.ok()) {
      return Prefixed(flag,
                      setting->secret_ ? absl::InvalidArgumentError("invalid value") : status);
    }
    setting->seen_ = true;
  }

  for (const auto& setting : settings_) {
    const std::string flag = absl::StrCat("--", setting->name());
    if (setting->required_ && !setting->seen_) {
      return absl::InvalidArgumentError(
          absl::StrCat("missing required setting ", flag, " (or ", setting->env(), ")"));
    }
    if (absl::Status status = setting->RunChecks(); !status.ok()) {
      return Prefixed(flag, status);
    }
  }
  return Action::kRun;
}

Parser::FlagNames Parser::Flags() const {
  FlagNames flags;
  for (const auto& setting : settings_) {
    (setting->IsBool() ? flags.switches : flags.with_value).push_back("--" + setting->name());
  }
  return flags;
}

std::string Parser::Usage() const {
  std::string usage = absl::StrCat("Usage: ", program_, " [flags]");
  if (positional_ != nullptr) absl::StrAppend(&usage, " ", positional_name_);
  absl::StrAppend(&usage, "\n\n", summary_, "\n\nFlags (each also read from the environment ",
                  "variable shown in brackets; a flag wins over the environment):\n");
  for (const auto& setting : settings_) {
    std::string left = absl::StrCat("  --", setting->name());
    if (!setting->IsBool()) absl::StrAppend(&left, "=", setting->value_name_);
    std::string right = setting->help_;
    if (setting->required_) {
      absl::StrAppend(&right, " (required)");
    } else if (!setting->secret_) {
      absl::StrAppend(&right, " (default ", setting->DefaultText(), ")");
    }
    absl::StrAppend(&right, " [", setting->env(), "]");
    constexpr size_t kColumn = 32;
    if (left.size() + 2 > kColumn) {
      absl::StrAppend(&usage, left, "\n", std::string(kColumn, ' '), right, "\n");
    } else {
      absl::StrAppend(&usage, left, std::string(kColumn - left.size(), ' '), right, "\n");
    }
  }
  absl::StrAppend(&usage, "  --help                        print this help and exit\n",
                  "  --version                     print the version and exit\n");
  return usage;
}

}  // namespace assisted::config
