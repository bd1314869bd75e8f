#include "services/agent/stream_client.h"

namespace assisted::agent {

StreamClient::StreamClient(ChannelFactory channels, StreamIdentity identity, StepExecutor& executor,
                           Random& random, log::Logger log, BackoffPolicy backoff)
    : executor_(executor),
      session_(std::move(channels), std::move(identity), *this, timer_, clock_, random,
               std::move(log), {.backoff = backoff, .retry_refusals_for_good = true}) {}

StreamClient::~StreamClient() {
  session_.Stop();
  session_.AwaitFinished().IgnoreError();  // Run() already returned why it ended
  timer_.Stop();                           // no callback reaches the session from now on
}

absl::Status StreamClient::Run() {
  session_.Start();
  return session_.AwaitFinished();
}

void StreamClient::Stop() { session_.Stop(); }

void StreamClient::OnInstruction(const v1::Instruction& instruction, bool first_time) {
  if (!first_time) return;
  executor_.Run(instruction, [this](types::v1::StepResult result) {
    v1::AgentMessage message;
    *message.mutable_step_result() = std::move(result);
    // Kept until acknowledged; if the stream is down now, the next registration sends it.
    session_.Send(std::move(message));
  });
}

void StreamClient::SendProgress(v1::AgentMessage progress) { session_.Send(std::move(progress)); }

void StreamClient::SendLogChunk(v1::LogChunk chunk) {
  v1::AgentMessage message;
  *message.mutable_log_chunk() = std::move(chunk);
  session_.Send(std::move(message));
}

}  // namespace assisted::agent
