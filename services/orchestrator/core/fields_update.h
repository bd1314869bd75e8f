// File: services/orchestrator/core/fields_update.h
//
// A partial write of a stored host or cluster: the values in `fields`, the top-level fields
// named in `paths` (an update mask, as the inventory's patch_mask and update_mask take it). The
// orchestrator's one patch type: a step result, a choice the service makes for the user and a
// state-machine row's effects each say what they change with it, and the refresher writes their
// union with one compare-and-set.
//
//   HostFieldsUpdate update;
//   update.fields.set_connection_timed_out(true);
//   update.Mark("connection_timed_out");
//   update.Merge(other);  // other's fields win

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_FIELDS_UPDATE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_FIELDS_UPDATE_H_

#include <algorithm>
#include <string>
#include <vector>

#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/util/field_mask_util.h"

namespace assisted::orchestrator::core {

template <typename Record>
struct FieldsUpdate {
  Record fields;
  std::vector<std::string> paths;  // empty: the update changes nothing

  bool empty() const { return paths.empty(); }
  bool Has(const std::string& path) const {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
  }
  // Names `path` as written (once, whatever the number of calls).
  void Mark(const std::string& path) {
    if (!Has(path)) paths.push_back(path);
  }
  // Adds `other`'s fields; where both write a field, `other`'s value replaces this one's whole.
  void Merge(const FieldsUpdate& other) {
    other.ApplyTo(fields);
    for (const std::string& path : other.paths) Mark(path);
  }
  // Writes the named fields into `record`, each replaced whole (as the inventory does).
  void ApplyTo(Record& record) const {
    if (empty()) return;
    google::protobuf::FieldMask mask;
    for (const std::string& path : paths) mask.add_paths(path);
    google::protobuf::util::FieldMaskUtil::MergeOptions options;
    options.set_replace_message_fields(true);
    options.set_replace_repeated_fields(true);
    google::protobuf::util::FieldMaskUtil::MergeMessageTo(fields, mask, options, &record);
  }
};

using HostFieldsUpdate = FieldsUpdate<types::v1::Host>;
using ClusterFieldsUpdate = FieldsUpdate<types::v1::Cluster>;

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_FIELDS_UPDATE_H_
