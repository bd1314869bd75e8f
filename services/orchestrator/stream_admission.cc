#include "services/orchestrator/stream_admission.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {
namespace {

// Decrements `counts[key]`, dropping the entry at zero so idle peers cost no memory.
void Decrement(absl::flat_hash_map<std::string, int>& counts, const std::string& key) {
  if (auto it = counts.find(key); it != counts.end() && --it->second <= 0) counts.erase(it);
}

}  // namespace

std::string PeerAddress(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

absl::Status StreamAdmission::Open(const std::shared_ptr<Session>& session, absl::Time now) {
  const std::string peer = PeerAddress(session->peer());
  absl::MutexLock lock(&mu_);
  const int unregistered = static_cast<int>(streams_.size()) - registered_;
  if (unregistered >= limits_.max_unregistered) {
    return absl::ResourceExhaustedError(
        "this orchestrator holds its maximum of agent streams waiting to register");
  }
  if (auto it = unregistered_per_peer_.find(peer);
      it != unregistered_per_peer_.end() && it->second >= limits_.max_unregistered_per_peer) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many unregistered agent streams from ", peer));
  }
  if (auto it = per_peer_.find(peer);
      limits_.max_per_peer > 0 && it != per_peer_.end() && it->second >= limits_.max_per_peer) {
    return absl::ResourceExhaustedError(absl::StrCat("too many agent streams from ", peer));
  }
  streams_[session.get()] = Stream{session, peer, now, false};
  ++per_peer_[peer];
  ++unregistered_per_peer_[peer];
  return absl::OkStatus();
}

absl::Status StreamAdmission::Register(const Session& session) {
  absl::MutexLock lock(&mu_);
  auto it = streams_.find(&session);
  if (it == streams_.end()) {
    return absl::FailedPreconditionError("the stream was not admitted");
  }
  Stream& stream = it->second;
  stream.heard = true;
  if (stream.registered) return absl::OkStatus();
  if (registered_ >= limits_.max_registered) {
    return absl::ResourceExhaustedError(absl::StrCat("this orchestrator holds its maximum of ",
                                                     limits_.max_registered, " agent streams"));
  }
  stream.registered = true;
  ++registered_;
  Decrement(unregistered_per_peer_, stream.peer);
  return absl::OkStatus();
}

void StreamAdmission::Heard(const Session& session) {
  absl::MutexLock lock(&mu_);
  if (auto it = streams_.find(&session); it != streams_.end()) it->second.heard = true;
}

void StreamAdmission::Close(const Session& session) {
  absl::MutexLock lock(&mu_);
  auto it = streams_.find(&session);
  if (it == streams_.end()) return;
  Decrement(per_peer_, it->second.peer);
  if (it->second.registered) {
    --registered_;
  } else {
    Decrement(unregistered_per_peer_, it->second.peer);
  }
  streams_.erase(it);
}

std::vector<std::shared_ptr<Session>> StreamAdmission::Overdue(absl::Time now) const {
  std::vector<std::shared_ptr<Session>> overdue;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, stream] : streams_) {
    if (stream.heard || now - stream.opened < limits_.registration_deadline) continue;
    if (std::shared_ptr<Session> session = stream.session.lock()) {
      overdue.push_back(std::move(session));
    }
  }
  return overdue;
}

absl::Time StreamAdmission::NextDeadline() const {
  absl::Time next = absl::InfiniteFuture();
  absl::MutexLock lock(&mu_);
  for (const auto& [key, stream] : streams_) {
    if (!stream.heard) next = std::min(next, stream.opened + limits_.registration_deadline);
  }
  return next;
}

int StreamAdmission::open() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

int StreamAdmission::registered() const {
  absl::MutexLock lock(&mu_);
  return registered_;
}

}  // namespace assisted::orchestrator
