// File: lib/containers/registries_conf.h
//
// Mirror rules of containers-registries.conf(5) (version 2): the one writer of
// /etc/containers/registries.conf on discovery hosts (lib/ignition/discovery_ignition.h) and
// the one reader of it on those hosts (the agent's container-image-availability check), so a
// pull the check probes goes where podman's would.
//
//   std::vector<MirrorRule> rules = {{.source = "quay.io/openshift-release-dev/ocp-release",
//                                     .mirrors = {"mirror.lab:5000/ocp/release"},
//                                     .mirror_by_digest_only = true}};
//   std::string text = RenderRegistriesConf(rules);
//   ASSIGN_OR_RETURN(std::vector<MirrorRule> read, ParseRegistriesConf(text));
//   PullReferences("quay.io/openshift-release-dev/ocp-release@sha256:ab…", read)
//     == {"mirror.lab:5000/ocp/release@sha256:ab…",
//     "quay.io/openshift-release-dev/ocp-release@sha256:ab…"}
//
// What is read: every [[registry]] table's `prefix`, `location`, `mirror-by-digest-only` and
// `blocked`, and its [[registry.mirror]] tables' `location`. Everything else (search registries,
// aliases, `insecure`, `pull-from-mirror`, wildcard prefixes "*.example.com", drop-ins in
// registries.conf.d/) is skipped: this product writes none of it.

#ifndef ASSISTED_LIB_CONTAINERS_REGISTRIES_CONF_H_
#define ASSISTED_LIB_CONTAINERS_REGISTRIES_CONF_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::containers {

// One [[registry]] table.
struct MirrorRule {
  // The repository (or registry) whose pulls the rule takes: references equal to it or
  // continuing it with '/', ':' or '@' ("quay.io/ocp" takes "quay.io/ocp:4" and
  // "quay.io/ocp/release@sha256:…", not "quay.io/ocpx").
  std::string source;
  // Where the source's images really are; empty: `source` itself (registries.conf's location).
  std::string location;
  std::vector<std::string> mirrors;    // tried in order before the location
  bool mirror_by_digest_only = false;  // mirrors serve only pulls by digest ("@sha256:…")
  bool blocked = false;                // the location itself is never contacted
};

// The registries.conf text of `rules`, in order (a header comment first). The caller checks
// the names (lib/ignition checks them against the user's fields); quotes and backslashes are
// escaped.
std::string RenderRegistriesConf(const std::vector<MirrorRule>& rules);

// The rules of a registries.conf text (at most kMaxRegistriesConfBytes). INVALID_ARGUMENT
// naming the line for text that is not the TOML this reads (an unterminated string, a key
// without a value, a [[registry.mirror]] before any [[registry]], a bad boolean).
inline constexpr size_t kMaxRegistriesConfBytes = 1 << 20;
absl::StatusOr<std::vector<MirrorRule>> ParseRegistriesConf(absl::string_view text);

// The references a pull of `image` tries, in the order podman tries them: the longest-matching
// rule's mirrors (skipped for a pull by tag when mirror_by_digest_only), then the image at the
// rule's location unless it is blocked. `image` itself alone when no rule takes it. Never
// empty unless a blocked rule without usable mirrors takes the image.
std::vector<std::string> PullReferences(absl::string_view image,
                                        const std::vector<MirrorRule>& rules);

// The rule that takes `image` (the longest matching source), nullptr when none does.
const MirrorRule* RuleFor(absl::string_view image, const std::vector<MirrorRule>& rules);

}  // namespace assisted::containers

#endif  // ASSISTED_LIB_CONTAINERS_REGISTRIES_CONF_H_
