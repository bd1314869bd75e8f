// File: services/agent/simulation/profile_paths.h
//
// Test helper: the path of a shipped simulation profile (tests/fixtures/profiles/NAME.json), as
// a runfile; LoadProfile follows its link to the source tree, where the hardware trees are.

#ifndef ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_PATHS_H_
#define ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_PATHS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace assisted::agent::simulation::testing {

// "master" -> ".../tests/fixtures/profiles/master.json".
std::string ProfilePath(absl::string_view name);

}  // namespace assisted::agent::simulation::testing

#endif  // ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_PATHS_H_
