// File: services/orchestrator/core/state_machine_docs.h
//
// docs/state-machines.md, generated from the very tables the engine runs: for each machine a
// Mermaid state diagram and the table of rows in evaluation order, then the validation gates,
// the default timeouts and the next-step plans. gen_state_machines_doc writes it;
// state_machine_docs_test fails when the checked-in copy differs.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_STATE_MACHINE_DOCS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_STATE_MACHINE_DOCS_H_

#include <string>

namespace assisted::orchestrator::core {

// The whole document.
std::string RenderStateMachinesDoc();

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_STATE_MACHINE_DOCS_H_
