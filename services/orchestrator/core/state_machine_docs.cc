// File: services/orchestrator/core/state_machine_docs.cc

#include "services/orchestrator/core/state_machine_docs.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/next_steps.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

// Table cells: no pipes, no line breaks.
std::string Cell(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}});
}

// Mermaid state ids cannot contain '-'; the label keeps the real name.
std::string MermaidId(absl::string_view name) {
  return name.empty() ? "[*]" : absl::StrReplaceAll(name, {{"-", "_"}});
}

std::string Minutes(absl::Duration d) {
  return absl::ToInt64Minutes(d) % 60 == 0 && d >= absl::Hours(1)
             ? absl::StrCat(absl::ToInt64Hours(d), " h")
             : absl::StrCat(absl::ToInt64Minutes(d), " min");
}

template <typename Machine>
void RenderMachine(const Machine& m, absl::string_view title, absl::string_view intro,
                   std::string* out) {
  const auto& n = m.naming();
  absl::StrAppend(out, "## ", title, "\n\n", intro, "\n\n");
  absl::StrAppend(out, "States (", m.states().size(), "): ");
  std::vector<std::string> states;
  for (auto s : m.states()) {
    states.push_back(n.state(s).empty() ? "*(none: not created yet)*"
                                        : absl::StrCat("`", n.state(s), "`"));
  }
  absl::StrAppend(out, absl::StrJoin(states, ", "), ".\n\n");

  // Diagram: one arrow per (from, to) with the events that take it; stay rows are omitted.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> edges;
  for (const auto& row : m.rows()) {
    if (!row.to) continue;
    for (auto from : row.from) {
      if (from == *row.to) continue;
      edges[{std::string(n.state(from)), std::string(n.state(*row.to))}].insert(
          std::string(n.event(row.event)));
    }
  }
  absl::StrAppend(out, "```mermaid\nstateDiagram-v2\n");
  for (auto s : m.states()) {
    if (n.state(s).empty()) continue;
    absl::StrAppend(out, "  state \"", n.state(s), "\" as ", MermaidId(n.state(s)), "\n");
  }
  for (const auto& [edge, events] : edges) {
    absl::StrAppend(out, "  ", MermaidId(edge.first), " --> ", MermaidId(edge.second), ": ",
                    absl::StrJoin(events, ", "), "\n");
  }
  absl::StrAppend(out, "```\n\n");

  absl::StrAppend(out,
                  "Rows in evaluation order (the first row whose event, state and guard match "
                  "wins; \"same\" keeps the state):\n\n");
  absl::StrAppend(out, "| # | event | from | guard | to | effects | status_info | why |\n");
  absl::StrAppend(out, "|---|---|---|---|---|---|---|---|\n");
  for (std::size_t i = 0; i < m.rows().size(); ++i) {
    const auto& row = m.rows()[i];
    std::vector<std::string> from;
    for (auto s : row.from) from.emplace_back(n.state(s).empty() ? "(none)" : n.state(s));
    std::vector<std::string> effects;
    for (auto e : row.action.effects) effects.emplace_back(n.effect(e));
    absl::StrAppend(out, "| ", i, " | ", n.event(row.event), " | ", absl::StrJoin(from, ", "),
                    " | ", Cell(row.guard.name), " | ",
                    row.to ? std::string(n.state(*row.to)) : std::string("same"), " | ",
                    absl::StrJoin(effects, ", "), " | ", Cell(row.action.info_doc), " | ",
                    Cell(row.doc), " |\n");
  }
  absl::StrAppend(out, "\n");
}

void RenderGates(std::string* out) {
  const HostGates& h = HostValidationGates();
  const ClusterGates& c = ClusterValidationGates();
  auto list = [](const std::vector<absl::string_view>& ids) {
    return absl::StrCat("`", absl::StrJoin(ids, "`, `"), "`");
  };
  absl::StrAppend(out, "## Validation groups the guards name\n\n");
  absl::StrAppend(out, "| group | validation ids |\n|---|---|\n");
  absl::StrAppend(out, "| host min-hardware | ", list(h.min_hardware), " |\n");
  absl::StrAppend(out, "| host required-input | ", list(h.required_input), " |\n");
  absl::StrAppend(out, "| host sufficient-for-install | ", list(h.sufficient_for_install), " |\n");
  absl::StrAppend(out, "| host sufficient-or-unknown (pending passes) | ",
                  list(h.sufficient_or_unknown), " |\n");
  absl::StrAppend(out, "| host informative (never blocks) | ", list(h.informative), " |\n");
  absl::StrAppend(out, "| host unbound min-hardware | ", list(h.unbound_min_hardware), " |\n");
  absl::StrAppend(out, "| cluster required-input | ", list(c.required_input), " |\n");
  absl::StrAppend(out, "| cluster vips-defined | ", list(c.vips_defined), " |\n");
  absl::StrAppend(out, "| cluster required-for-install | ", list(c.required_for_install), " |\n\n");
}

void RenderTimeouts(std::string* out) {
  const Timeouts t;
  absl::StrAppend(out, "## Default timeouts\n\n| timeout | default |\n|---|---|\n");
  const std::vector<std::pair<const char*, absl::Duration>> rows = {
      {"host disconnection (before Rebooting)", t.host.disconnection},
      {"extra for the bootstrap host", t.host.bootstrap_extra_disconnection},
      {"host preparation (effective)", t.host.EffectivePrepare()},
      {"installing without progress", t.host.installing_without_progress},
      {"installing-pending-user-action", t.host.pending_user_action},
      {"reclaim", t.host.reclaim},
      {"host log collection (requested / collecting)", t.host.log_pending},
      {"cluster preparation", t.cluster.prepare},
      {"cluster installation (soft mode)", t.cluster.installation},
      {"cluster finalizing (hard mode)", t.cluster.finalizing},
  };
  for (const auto& [name, d] : rows) absl::StrAppend(out, "| ", name, " | ", Minutes(d), " |\n");
  for (const auto& [stage, d] : t.host.stage) {
    absl::StrAppend(out, "| stage ", HostStageName(stage), " | ", Minutes(d), " |\n");
  }
  absl::StrAppend(out, "| stage Rebooting, single-node | ", Minutes(t.host.sno_rebooting), " |\n");
  for (const auto& [stage, d] : t.cluster.finalizing_stage_hard) {
    absl::StrAppend(out, "| finalizing ", FinalizingStageName(stage), " (hard) | ", Minutes(d),
                    " |\n");
  }
  absl::StrAppend(out, "\n");
}

void RenderStepPlans(std::string* out) {
  absl::StrAppend(out,
                  "## Next steps per host state\n\nBefore conditions (DHCP, disk speed once, "
                  "logs once, Tang, kube-api mode, throttling, disabled steps, agent upgrade):\n\n"
                  "| kind | state | steps |\n|---|---|---|\n");
  for (StepsKind kind : {StepsKind::kDay1, StepsKind::kDay2, StepsKind::kUnbound}) {
    for (types::v1::HostStatus s : PlannedStates(kind)) {
      std::vector<std::string> steps;
      for (types::v1::StepType t : StepPlan(kind, s)) steps.emplace_back(StepTypeName(t));
      absl::StrAppend(out, "| ", StepsKindName(kind), " | ", HostStatusName(s), " | ",
                      steps.empty() ? "(none)" : absl::StrJoin(steps, ", "), " |\n");
    }
  }
  absl::StrAppend(out, "\n");
}

}  // namespace

std::string RenderStateMachinesDoc() {
  std::string out =
      "# State machines\n\n"
      "Generated from `services/orchestrator/core` by "
      "`bazel run //services/orchestrator/core:gen_state_machines_doc`; do not edit by hand "
      "(`state_machine_docs_test` fails when this file is stale).\n\n"
      "Each machine is a table read top to bottom: for an event fired in a state, the first "
      "row whose event matches, whose from-states contain the state and whose guard holds "
      "decides the new state, the status_info and the effects the caller carries out. No row: "
      "the action is not allowed in that state.\n\n";
  RenderMachine(HostStateMachine(), "Host",
                "Bound hosts and the unbound (infra-env pool) states share one table.", &out);
  RenderMachine(ClusterStateMachine(), "Cluster",
                "\"enough hosts\" is the success criteria: every expected control-plane node "
                "(and the arbiter when one is assigned) and two workers when two or more were "
                "assigned; single-node needs its one master.",
                &out);
  RenderGates(&out);
  RenderTimeouts(&out);
  RenderStepPlans(&out);
  return out;
}

}  // namespace assisted::orchestrator::core
