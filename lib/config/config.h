// File: lib/config/config.h
//
// Typed settings for a binary, read from command-line flags and the environment, validated once
// at start-up. A binary describes its settings by binding each to a field of its own config
// struct; the field's initial value is the default. Precedence: flag > environment > default.
//
//   struct Config { std::string listen = "0.0.0.0:9091"; int metrics_port = 9101; };
//   Config config;
//   config::Parser parser("assisted-inventory", "The system of record.");
//   parser.String("listen", &config.listen, "gRPC listen address").Check(config::HostPort);
//   parser.Int("metrics-port", &config.metrics_port, "Prometheus port").Range(0, 65535);
//   absl::StatusOr<config::Action> action = parser.Parse(argc, argv, config::ProcessEnvironment());
//
// Every setting --some-name is also read from the environment variable ASSISTED_SOME_NAME (the
// prefix is configurable). Errors are INVALID_ARGUMENT with a one-line message that starts with
// the setting's name, e.g. `--metrics-port: "x" is not an integer`, so main() can print it as is.
// The parser keeps pointers to the bound fields: they must outlive Parse().

#ifndef ASSISTED_LIB_CONFIG_CONFIG_H_
#define ASSISTED_LIB_CONFIG_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace assisted::config {

// A snapshot of environment variables, by name.
using Environment = std::map<std::string, std::string>;

// Returns the calling process's environment.
Environment ProcessEnvironment();

// What the binary should do after a successful Parse().
enum class Action {
  kRun,      // settings are valid: go on
  kHelp,     // --help was given: print Parser::Usage() and exit 0
  kVersion,  // --version was given: print the version and exit 0
};

// Converters from text; each returns INVALID_ARGUMENT with a message that does not name the
// setting (the parser prefixes it).
absl::Status ParseValue(absl::string_view text, std::string* out);
absl::Status ParseValue(absl::string_view text, int* out);
absl::Status ParseValue(absl::string_view text, int64_t* out);
absl::Status ParseValue(absl::string_view text, bool* out);
absl::Status ParseValue(absl::string_view text, absl::Duration* out);
// Comma-separated; empty text is the empty list.
absl::Status ParseValue(absl::string_view text, std::vector<std::string>* out);

// Renders a value the way ParseValue reads it (for --help defaults).
std::string FormatValue(const std::string& value);
std::string FormatValue(int value);
std::string FormatValue(int64_t value);
std::string FormatValue(bool value);
std::string FormatValue(absl::Duration value);
std::string FormatValue(const std::vector<std::string>& value);

// Ready-made checks.
// "host:port" or "[v6]:port" with a port in 0..65535; host may be empty ("":port = all).
absl::Status HostPort(const std::string& value);
// Empty or "host:port" (an optional listener, empty = disabled).
absl::Status OptionalHostPort(const std::string& value);
// A gRPC target naming the replicas of a peer: "host:port" (what the name resolves to),
// "dns:///host:port" (the same, spelled as gRPC's DNS scheme: a headless Kubernetes Service's
// name gives one address per pod), or a fixed list "ipv4:///a.b.c.d:port,..." or
// "ipv6:///[addr]:port,...". Each host:port must pass HostPort with a non-empty host.
absl::Status GrpcTarget(const std::string& value);
// A UUID in its canonical 8-4-4-4-12 hexadecimal form.
absl::Status Uuid(const std::string& value);
// Empty or a UUID.
absl::Status OptionalUuid(const std::string& value);

// One described setting. Obtained from Parser; modifiers return *this for chaining.
class Setting {
 public:
  virtual ~Setting() = default;

  const std::string& name() const { return name_; }
  const std::string& env() const { return env_; }

 protected:
  friend class Parser;
  Setting(std::string name, std::string env, std::string help, std::string value_name)
      : name_(std::move(name)),
        env_(std::move(env)),
        help_(std::move(help)),
        value_name_(std::move(value_name)) {}

  virtual absl::Status Set(absl::string_view text) = 0;
  virtual absl::Status RunChecks() const = 0;
  virtual std::string DefaultText() const = 0;
  virtual bool IsBool() const { return false; }

  std::string name_;
  std::string env_;
  std::string help_;
  std::string value_name_;
  bool required_ = false;
  bool secret_ = false;
  bool seen_ = false;
};

template <typename T>
class TypedSetting final : public Setting {
 public:
  TypedSetting(std::string name, std::string env, std::string help, std::string value_name,
               T* target)
      : Setting(std::move(name), std::move(env), std::move(help), std::move(value_name)),
        target_(target),
        default_(*target) {}

  // The setting must be given (by flag or environment); its default is not enough.
  TypedSetting& Required() {
    required_ = true;
    return *this;
  }

  // The value is sensitive: --help and errors never print it.
  TypedSetting& Secret() {
    secret_ = true;
    return *this;
  }

  // Reads the environment variable `env` instead of the derived name.
  TypedSetting& Env(std::string env) {
    env_ = std::move(env);
    return *this;
  }

  // Adds a check on the final value; its error message is prefixed with the setting's name.
  TypedSetting& Check(std::function<absl::Status(const T&)> check) {
    checks_.push_back(std::move(check));
    return *this;
  }

  // For numbers and durations: the final value must lie in [low, high].
  TypedSetting& Range(T low, T high);

 private:
  absl::Status Set(absl::string_view text) override { return ParseValue(text, target_); }
  absl::Status RunChecks() const override {
    for (const auto& check : checks_) {
      if (absl::Status status = check(*target_); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  std::string DefaultText() const override { return FormatValue(default_); }
  bool IsBool() const override { return std::is_same_v<T, bool>; }

  T* target_;
  T default_;
  std::vector<std::function<absl::Status(const T&)>> checks_;
};

// Describes and parses the settings of one binary. Not thread-safe; use from main().
class Parser {
 public:
  // `program` names the binary in usage and errors; `summary` is one paragraph for --help.
  // Environment variables are named env_prefix + NAME_IN_UPPER_SNAKE.
  Parser(std::string program, std::string summary, std::string env_prefix = "ASSISTED_");

  const std::string& program() const { return program_; }

  TypedSetting<std::string>& String(absl::string_view name, std::string* target,
                                    absl::string_view help);
  TypedSetting<int>& Int(absl::string_view name, int* target, absl::string_view help);
  TypedSetting<int64_t>& Int64(absl::string_view name, int64_t* target, absl::string_view help);
  TypedSetting<bool>& Bool(absl::string_view name, bool* target, absl::string_view help);
  TypedSetting<absl::Duration>& Duration(absl::string_view name, absl::Duration* target,
                                         absl::string_view help);
  TypedSetting<std::vector<std::string>>& List(absl::string_view name,
                                               std::vector<std::string>* target,
                                               absl::string_view help);

  // How positional arguments and flags may mix.
  enum class Positionals {
    kInterspersed,  // flags may come before, between and after them
    kRest,          // the first positional argument and everything after it (flags too) go to
                    // `target`: for a command dispatcher whose sub-commands parse their own flags
  };

  // Accepts positional arguments into `target`. Without this, they are an error. "--" ends
  // the flags either way.
  void Positional(absl::string_view value_name, std::vector<std::string>* target,
                  Positionals mode = Positionals::kInterspersed);

  // Applies the environment, then argv[1..], then runs required-checks and Check()s.
  absl::StatusOr<Action> Parse(int argc, const char* const* argv, const Environment& env);
  absl::StatusOr<Action> Parse(const std::vector<std::string>& args, const Environment& env);

  // The --help text.
  std::string Usage() const;

  // The flags as written on a command line ("--name"), in the order added, those that take a
  // value apart from the switches (bool settings): what shell completion offers.
  struct FlagNames {
    std::vector<std::string> with_value;
    std::vector<std::string> switches;
  };
  FlagNames Flags() const;

 private:
  template <typename T>
  TypedSetting<T>& Add(absl::string_view name, T* target, absl::string_view help,
                       absl::string_view value_name);
  Setting* Find(absl::string_view name) const;

  std::string program_;
  std::string summary_;
  std::string env_prefix_;
  std::vector<std::unique_ptr<Setting>> settings_;
  std::string positional_name_;
  std::vector<std::string>* positional_ = nullptr;
  Positionals positional_mode_ = Positionals::kInterspersed;
};

template <typename T>
TypedSetting<T>& TypedSetting<T>::Range(T low, T high) {
  return Check([low, high](const T& value) -> absl::Status {
    if (value < low || value > high) {
      return absl::InvalidArgumentError("must be between " + FormatValue(low) + " and " +
                                        FormatValue(high) + ", got " + FormatValue(value));
    }
    return absl::OkStatus();
  });
}

}  // namespace assisted::config

#endif  // ASSISTED_LIB_CONFIG_CONFIG_H_
