// The hub's result application: an agent's step results (exactly once: the applied sequence
// number is written with the result), install progress and log chunks, each acknowledged once
// stored and followed by a refresh of the host's cluster on the same worker. One that cannot be
// stored now ends the stream (LeaveUnstored), so acks stay cumulative and in seq order.
// Progress and log chunks need no fence of their own: a re-sent report names a stage already
// recorded (the same stage again records no new stage and no event; an earlier one is refused
// as going backwards, and acknowledged), and a re-sent log chunk rewrites the same bytes at the
// same offset.

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/agent_hub.h"
#include "services/orchestrator/step_results.h"

namespace assisted::orchestrator {

namespace inv = inventory::v1;

void AgentHub::ApplyLogChunk(const std::shared_ptr<Session>& session, uint64_t seq,
                             const agent::v1::LogChunk& chunk) {
  if (absl::Status asked = session->CheckLogChunk(chunk); !asked.ok()) {
    RejectMessage(session, seq, asked.message());
    return;
  }
  const Agent agent = AgentOf(*session);
  // Bundles are cluster artifacts (logs/<type>_<host id>.tar.gz), downloaded through the
  // gateway's cluster logs. A host outside any cluster has nowhere to keep them.
  if (agent.cluster_id.empty()) {
    log_.Warning("log bundle dropped: the host is in no cluster", {{"host_id", agent.host_id}});
    Acknowledge(session, seq);
    return;
  }
  const bool controller = chunk.logs_type() == agent::v1::LOGS_TYPE_CONTROLLER;
  const ArtifactWrite put{
      .cluster_id = agent.cluster_id,
      .name = absl::StrCat("logs/", controller ? "controller_" : "host_", agent.host_id, ".tar.gz"),
      .kind = inv::ARTIFACT_KIND_LOGS,
      .content_type = "application/gzip",
      .content = chunk.data(),
      .offset = chunk.offset(),
      .partial = !chunk.last()};
  const absl::Status status = inventory_.PutArtifact(put);
  if (absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status)) {
    LeaveUnstored(session, seq, "log chunk", status);
    return;
  }
  if (!status.ok()) {
    // A chunk that cannot land (e.g. its offset is past what is stored) never will: the
    // bundle stays partial and the next logs-gather starts over at offset 0.
    log_.Warning(
        "log chunk not stored",
        {{"host_id", agent.host_id}, {"offset", chunk.offset()}, {"error", status.message()}});
  } else if (chunk.last()) {
    session->StepDone(chunk.step_id());
    log_.Info("log bundle stored",
              {{"host_id", agent.host_id},
               {"artifact", put.name},
               {"bytes", chunk.offset() + static_cast<int64_t>(chunk.data().size())}});
  }
  Acknowledge(session, seq);
}

void AgentHub::ApplyProgress(const std::shared_ptr<Session>& session, uint64_t seq,
                             const agent::v1::Progress& progress) {
  const Agent agent = AgentOf(*session);
  absl::StatusOr<types::v1::Host> host = inventory_.GetHost(agent.infra_env_id, agent.host_id);
  if (!host.ok()) {
    LeaveUnstored(session, seq, "progress report", host.status());
    return;
  }
  if (absl::Status handled = progress_.OnProgress(*host, progress); !handled.ok()) {
    LeaveUnstored(session, seq, "progress report", handled);
    return;
  }
  Acknowledge(session, seq);
  scheduler_.RefreshNow(Target{agent.infra_env_id, agent.host_id, host->cluster_id()});
}

void AgentHub::ApplyResult(const std::shared_ptr<Session>& session, uint64_t seq,
                           const types::v1::StepResult& result) {
  const Agent agent = AgentOf(*session);
  if (seq == 0) {
    session->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                "step results must carry a sequence number"));
    return;
  }
  if (seq <= agent.applied_seq) {
    Acknowledge(session, seq);  // a re-send after a reconnect: applied before
    return;
  }
  if (absl::Status pushed = session->CheckResult(result); !pushed.ok()) {
    RejectMessage(session, seq, pushed.message());
    return;
  }
  // Optimistic concurrency: the result and the applied seq are written together, on the
  // version read, so a concurrent writer makes us re-read rather than apply twice.
  absl::Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    absl::StatusOr<types::v1::Host> host = inventory_.GetHost(agent.infra_env_id, agent.host_id);
    if (!host.ok()) {
      last = host.status();
      break;
    }
    if (host->agent_instance_id() == agent.instance_id && seq <= host->agent_applied_seq()) {
      Acknowledge(session, seq);
      return;
    }
    HostFieldsUpdate update;
    update.fields.set_agent_instance_id(agent.instance_id);
    update.fields.set_agent_applied_seq(seq);
    MarkCheckedIn(*host, clock_.Now(), update);
    for (const char* path : {"agent_instance_id", "agent_applied_seq"}) update.Mark(path);
    absl::StatusOr<HostFieldsUpdate> fields = NormalizeStepResult(result, *host);
    if (!fields.ok()) {
      // Over a limit, or the agent and the orchestrator disagree on a format: sending it again
      // will not help.
      RejectMessage(session, seq, fields.status().message());
      return;
    }
    update.Merge(*fields);
    // The write's Watch echo finds the refresh below under way and waits for it.
    const RefreshScheduler::Expecting refresh(
        scheduler_, Target{agent.infra_env_id, agent.host_id, host->cluster_id()});
    absl::StatusOr<types::v1::Host> written =
        inventory_.UpdateHost(host->infra_env_id(), host->id(), update, host->resource_version());
    if (written.ok()) {
      {
        absl::MutexLock lock(&mu_);
        if (auto it = agents_.find(session.get()); it != agents_.end()) {
          it->second.applied_seq = seq;
        }
      }
      session->StepDone(result.step_id());
      Acknowledge(session, seq);
      // What the result taught us may change this host's validations and status, and those of
      // the hosts that depend on it; changed instructions are pushed.
      scheduler_.RefreshNow(Target{agent.infra_env_id, agent.host_id, written->cluster_id()},
                            &*written);
      return;
    }
    last = written.status();
    if (!absl::IsAborted(last)) break;
  }
  LeaveUnstored(session, seq, absl::StrCat("result of step ", result.step_id()), last);
}

}  // namespace assisted::orchestrator
