// File: services/orchestrator/install/manifests.h
//
// A cluster's user manifests: Kubernetes objects the user adds to the installation (a third-party
// network plugin, machine configs, ...). Each is one YAML or JSON file in one of the installer's
// two folders, "manifests" or "openshift", kept by the inventory as an artifact of kind MANIFEST
// named "manifests/<folder>/<file_name>", and written into the bootstrap Ignition at
// /opt/openshift/<folder>/<file_name>, where the bootstrap applies the installer's own manifests.
// This file holds the naming and the checks; the actions that store them are in
// actions/cluster_actions.h.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_MANIFESTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_MANIFESTS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace assisted::orchestrator::install {

// Largest manifest accepted, in bytes.
inline constexpr size_t kMaxManifestBytes = 1 << 20;

// Which manifest: its folder and file name.
struct ManifestName {
  std::string folder;
  std::string file_name;

  friend bool operator==(const ManifestName& a, const ManifestName& b) {
    return a.folder == b.folder && a.file_name == b.file_name;
  }
};

// The artifact name a manifest is stored under: "manifests/<folder>/<file_name>".
std::string ManifestArtifactName(const ManifestName& name);

// The prefix every manifest artifact's name starts with.
inline constexpr char kManifestArtifactPrefix[] = "manifests/";

// The manifest an artifact name stores; nullopt for a name that is not one of
// ManifestArtifactName's.
std::optional<ManifestName> ParseManifestArtifactName(absl::string_view artifact_name);

// Where the bootstrap host finds the manifest: "/opt/openshift/<folder>/<file_name>".
std::string ManifestBootstrapPath(const ManifestName& name);

// INVALID_ARGUMENT naming `folder_field` unless the folder is "manifests" or "openshift", or
// `file_field` unless the file name is a plain name (letters, digits, ".", "_", "-"; no leading
// "."; at most 200 bytes) ending in ".yaml", ".yml" or ".json".
absl::Status CheckManifestName(const ManifestName& name, absl::string_view folder_field,
                               absl::string_view file_field);

// INVALID_ARGUMENT naming `field` unless `content` is not empty, at most kMaxManifestBytes, and
// parses: as JSON for a ".json" file, as (one or more documents of) YAML otherwise.
absl::Status CheckManifestContent(absl::string_view file_name, absl::string_view content,
                                  absl::string_view field);

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_MANIFESTS_H_
