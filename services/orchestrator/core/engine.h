// File: services/orchestrator/core/engine.h
//
// The one state-machine engine of the orchestrator. A machine is a TABLE of rows
//
//   {event, from-states, guard, to-state, action, doc}
//
// read top to bottom: for an event fired in a state, the first row whose event matches, whose
// from-states contain the state and whose guard holds wins. The engine decides; it changes
// nothing. The caller applies the Decision (new state, status_info, effects as data) with a
// compare-and-set and re-decides when someone else won.
//
//   const HostMachine& m = HostStateMachine();
//   ASSIGN_OR_RETURN(HostDecision d, m.Fire(HostEvent::kRefresh, host.status(), ctx));
//   if (d.changed()) store.CompareAndSetStatus(host, d.from, d.to, d.status_info);
//
// Guards and actions carry names so that the documentation (docs/state-machines.md) is generated
// from the very rows the engine runs.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_ENGINE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_ENGINE_H_

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace assisted::orchestrator::core {

// A named predicate over a machine's context. An empty `test` always holds.
template <typename Ctx>
struct Guard {
  std::string name;
  std::function<bool(const Ctx&)> test;

  bool Holds(const Ctx& ctx) const { return !test || test(ctx); }
};

// The guard that always holds (shown as "always" in the docs).
template <typename Ctx>
Guard<Ctx> Always() {
  return {"always", nullptr};
}

// A leaf guard.
template <typename Ctx>
Guard<Ctx> When(std::string name, std::function<bool(const Ctx&)> test) {
  return {std::move(name), std::move(test)};
}

template <typename Ctx>
Guard<Ctx> Not(Guard<Ctx> g) {
  std::string name = absl::StrCat("not (", g.name, ")");
  return {std::move(name), [g = std::move(g)](const Ctx& c) { return !g.Holds(c); }};
}

namespace internal {

template <typename Ctx>
Guard<Ctx> Combine(std::vector<Guard<Ctx>> guards, absl::string_view op, bool all) {
  std::vector<std::string> names;
  for (const Guard<Ctx>& g : guards) {
    names.push_back(guards.size() > 1 && g.name.find(' ') != std::string::npos
                        ? absl::StrCat("(", g.name, ")")
                        : g.name);
  }
  return {absl::StrJoin(names, op), [guards = std::move(guards), all](const Ctx& c) {
            for (const Guard<Ctx>& g : guards) {
              if (g.Holds(c) != all) return !all;
            }
            return all;
          }};
}

}  // namespace internal

// Holds when every guard holds.
template <typename Ctx>
Guard<Ctx> All(std::vector<Guard<Ctx>> guards) {
  return internal::Combine(std::move(guards), " and ", true);
}

// Holds when any guard holds.
template <typename Ctx>
Guard<Ctx> Any(std::vector<Guard<Ctx>> guards) {
  return internal::Combine(std::move(guards), " or ", false);
}

// What a row does besides changing the state: effects (data the caller carries out, e.g.
// "clear the installation progress") and the status_info shown to users. `info` may be empty
// (status_info unchanged); `info_doc` names it in the docs when it is computed from the context.
template <typename Ctx, typename Effect>
struct Action {
  std::vector<Effect> effects;
  std::function<std::string(const Ctx&)> info;
  std::string info_doc;
};

// An action that only sets a fixed status_info.
template <typename Ctx, typename Effect>
Action<Ctx, Effect> Info(std::string text, std::vector<Effect> effects = {}) {
  std::string doc = text;
  return {std::move(effects), [text = std::move(text)](const Ctx&) { return text; },
          std::move(doc)};
}

// The three kinds of action a table row uses, for one machine:
//   Act::Say("Host is ready", {kEffect})      fixed status_info (+ effects)
//   Act::Do({kEffect})                        effects only, status_info unchanged
//   Act::Explain("<doc>", fn, {kEffect})      status_info computed from the context
template <typename Ctx, typename Effect>
struct Actions {
  static Action<Ctx, Effect> Say(std::string text, std::vector<Effect> effects = {}) {
    return Info<Ctx, Effect>(std::move(text), std::move(effects));
  }
  static Action<Ctx, Effect> Do(std::vector<Effect> effects) {
    return {std::move(effects), nullptr, ""};
  }
  static Action<Ctx, Effect> Explain(std::string doc, std::function<std::string(const Ctx&)> info,
                                     std::vector<Effect> effects = {}) {
    return {std::move(effects), std::move(info), std::move(doc)};
  }
};

// One row of a table. `to` empty means "stay in the current state".
template <typename State, typename Event, typename Ctx, typename Effect>
struct Row {
  Event event;
  std::vector<State> from;
  Guard<Ctx> guard;
  std::optional<State> to;
  Action<Ctx, Effect> action;
  std::string doc;
};

// The outcome of firing an event. `row` is the index of the winning row in the table.
template <typename State, typename Effect>
struct Decision {
  State from;
  State to;
  std::size_t row = 0;
  std::string status_info;  // empty: leave status_info as it is
  std::vector<Effect> effects;

  bool changed() const { return from != to; }
  bool Has(Effect e) const {
    for (Effect x : effects) {
      if (x == e) return true;
    }
    return false;
  }
};

// Names of states and events, used in error messages and the docs.
template <typename State, typename Event, typename Effect>
struct Naming {
  absl::string_view (*state)(State);
  absl::string_view (*event)(Event);
  absl::string_view (*effect)(Effect);
};

template <typename State, typename Event, typename Ctx, typename Effect>
class StateMachine {
 public:
  using RowType = Row<State, Event, Ctx, Effect>;
  using DecisionType = Decision<State, Effect>;

  StateMachine(std::string name, std::vector<State> states, std::vector<Event> events,
               std::vector<RowType> rows, Naming<State, Event, Effect> naming)
      : name_(std::move(name)),
        states_(std::move(states)),
        events_(std::move(events)),
        rows_(std::move(rows)),
        naming_(naming) {}

  // Decides what `event` does to an entity in `state`. FAILED_PRECONDITION, naming the event and
  // the state, when no row matches (the action is not allowed now: the API answers 409).
  absl::StatusOr<DecisionType> Fire(Event event, State state, const Ctx& ctx) const {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const RowType& row = rows_[i];
      if (row.event != event || !Contains(row.from, state) || !row.guard.Holds(ctx)) continue;
      DecisionType d{state, row.to.value_or(state), i, {}, row.action.effects};
      if (row.action.info) d.status_info = row.action.info(ctx);
      return d;
    }
    absl::string_view state_name = naming_.state(state);
    return absl::FailedPreconditionError(absl::StrCat(name_, ": ", naming_.event(event),
                                                      " is not allowed in state ",
                                                      state_name.empty() ? "(none)" : state_name));
  }

  // Whether some row of `event` moves `from` to `to` (a stay row counts as from -> from).
  bool IsEdge(Event event, State from, State to) const {
    for (const RowType& row : rows_) {
      if (row.event == event && Contains(row.from, from) && row.to.value_or(from) == to) {
        return true;
      }
    }
    return false;
  }

  const std::string& name() const { return name_; }
  const std::vector<State>& states() const { return states_; }
  const std::vector<Event>& events() const { return events_; }
  const std::vector<RowType>& rows() const { return rows_; }
  const Naming<State, Event, Effect>& naming() const { return naming_; }

 private:
  static bool Contains(const std::vector<State>& states, State s) {
    for (State x : states) {
      if (x == s) return true;
    }
    return false;
  }

  std::string name_;
  std::vector<State> states_;
  std::vector<Event> events_;
  std::vector<RowType> rows_;
  Naming<State, Event, Effect> naming_;
};

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_ENGINE_H_
