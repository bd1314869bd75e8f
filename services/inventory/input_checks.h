// File: services/inventory/input_checks.h
//
// The input checks InventoryService applies before it writes anything: ids, names, DNS
// domains, cluster networks and VIPs, pull secrets and SSH keys. Pure functions: no I/O, no
// clock, no state, safe on any bytes.
//
// Every error is INVALID_ARGUMENT and its message starts with the field path as the API user
// sees it (proto field names, `[i]` for repeated fields), then says what is wrong and, where
// possible, what was meant:
//
//   cluster.name: "My_Cluster" is not a valid DNS label (lower-case letters, digits and '-', ...)
//   cluster.api_vips[1].ip: 10.0.0.5 is already used by api_vips[0]
//   cluster.machine_networks[0].cidr: "192.168.1.10/24" has host bits set (did you mean ...?)
//
// User text in messages is quoted, C-escaped and cut after 64 bytes; a pull secret never
// appears in a message, not even in part.
//
// How the service uses it:
//   CreateCluster:  RETURN_IF_ERROR(ValidateCreateClusterRequest(request));
//   UpdateCluster:  RETURN_IF_ERROR(ValidateUpdateClusterRequest(request));
//                   merge the paths of update_mask into the stored cluster, then
//                   RETURN_IF_ERROR(ValidateCluster(merged));
// and the same for infra-envs and hosts. Cross-field rules (VIPs inside machine networks, no
// overlapping networks) need the merged resource, which is why updates validate it.
//
// Checks here are about form, never about the state of the world: whether a VIP answers on
// the network, whether enough hosts fit a machine network or a registry accepts the pull
// secret are validations the orchestrator runs (reference §4).

#ifndef ASSISTED_SERVICES_INVENTORY_INPUT_CHECKS_H_
#define ASSISTED_SERVICES_INVENTORY_INPUT_CHECKS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"

namespace assisted::inventory {

// ---- Single values. `field` is the path the message starts with, e.g. "cluster.id".

// A client-supplied id: canonical RFC 4122 text, 8-4-4-4-12 lower-case hex digits, and not the
// nil UUID. Upper case is refused (with the lower-case spelling suggested) because ids are
// compared as text everywhere, so two spellings would be two resources.
absl::Status ValidateUuid(absl::string_view id, absl::string_view field);

// A cluster name: one DNS label of lower-case letters, digits and '-', 1 to 54 characters,
// starting and ending with a letter or digit. It becomes part of every cluster DNS name
// (api.<name>.<base_dns_domain>). 54 is the limit of the reference's UI (MGMT-2631); the
// reference service also admits dots, which we refuse: a dotted name would make the cluster
// domain ambiguous.
absl::Status ValidateClusterName(absl::string_view name, absl::string_view field);

// An infra-env name, a label for humans that goes into no DNS name (the reference does not
// constrain it, and its UI writes "<cluster>_infra-env"): 1 to 253 characters of valid UTF-8,
// no control characters (C0, DEL, C1), no leading or trailing white space.
absl::Status ValidateInfraEnvName(absl::string_view name, absl::string_view field);

// A host name a user asks for (it becomes the Kubernetes node name): RFC 1123 labels of
// lower-case letters, digits and '-' (each 1 to 63 characters, starting and ending with a
// letter or digit) separated by single dots, 253 characters at most, no trailing dot, and not
// one of the names the agent replaces (localhost, localhost.localdomain, localhost4,
// localhost4.localdomain4, localhost6, localhost6.localdomain6).
absl::Status ValidateHostname(absl::string_view hostname, absl::string_view field);

// A base DNS domain: at least two labels, each a valid lower-case DNS label of at most 63
// characters, 253 characters in all, and a last label that is not all digits (so it cannot
// read as an IP address). A trailing dot is refused with the dotless spelling suggested: the
// value is concatenated into names such as api.<name>.<domain>, where a dot would end up in
// the middle. Upper case is refused the same way, so one domain has one spelling.
absl::Status ValidateBaseDomain(absl::string_view domain, absl::string_view field);

// A pull secret as the installer and podman read it (the reference's ParsePullSecret): a JSON
// object whose "auths" object holds at least one registry, each an object with an "auth"
// string that is padded standard base64 of "user:password" (split at the first ':', the user
// not empty). "username"/"password" entries without "auth" are refused: containers' auth
// files use "auth" only. Surrounding white space is ignored; nesting deeper than 32 levels is
// refused before parsing. Messages start with "pull_secret:" and name registries, never
// values.
absl::Status ValidatePullSecret(absl::string_view pull_secret);

// SSH public keys in authorized_keys format, one per line: "<type> <base64> [comment]".
// Blank lines and lines starting with '#' are skipped; at least one key must remain. The type
// is ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com or
// sk-ecdsa-sha2-nistp256@openssh.com (ssh-dss is refused: current OpenSSH refuses it too).
// The base64 blob must decode to the same type, length-prefixed, followed by exactly the
// fields that key type has. Key options before the type (no-pty, from=...) are not accepted:
// the keys go to Ignition's sshAuthorizedKeys for the core user. Errors name the line
// ("field: line 2: ...").
absl::Status ValidateSshPublicKeys(absl::string_view keys, absl::string_view field);

// ---- Resources. Each checks every field that is set (non-empty) and that has a rule here;
// messages start with "cluster.", "infra_env." or "host.", the field names of the requests.

// Checks id, name, base_dns_domain (and that api-int.<name>.<base_dns_domain> stays within
// 253 characters), ssh_public_key, ui_settings (at most 64 KiB), and the networks together:
//  - every cidr parses as a canonical block in canonical text (no host bits, IPv6 as RFC
//    5952 prints it) and is not a block starting at the unspecified address (0.0.0.0/8,
//    ::/0); cluster and service networks hold at least 128 addresses (the reference's
//    MinMaskDelta), machine networks at least 2;
//  - cluster_networks[i].host_prefix is set, at least the block's prefix length and at most
//    bits - 7 (each host gets at least 128 addresses);
//  - families: the first entries of cluster_networks, service_networks, machine_networks,
//    api_vips and ingress_vips are all of one family, the primary one (the reference's
//    GetPrimaryIPStack). A network list holding both families is dual-stack and then has
//    exactly one IPv4 and one IPv6 entry; once any network list is dual-stack every
//    non-empty network list must be. A single-family list may hold several blocks;
//  - no two networks overlap, in the same list or across lists;
//  - VIPs: valid canonical addresses, no address used twice across api_vips and ingress_vips,
//    at most one per family in each list, and, when machine_networks is set, each inside a
//    machine network and not the network or broadcast address of an IPv4 one.
// Not checked here, because inventory stores what the orchestrator decides: VIPs set under
// vip_dhcp_allocation (the orchestrator writes the leased addresses there) or under
// user_managed_networking, and the number of api_vips against ingress_vips (leases arrive one
// at a time).
absl::Status ValidateCluster(const ::assisted::types::v1::Cluster& cluster);

// Checks id, name, cluster_id, ssh_authorized_key and rendezvous_ip (an IP address).
absl::Status ValidateInfraEnv(const ::assisted::types::v1::InfraEnv& infra_env);

// Checks id, infra_env_id, cluster_id and requested_hostname.
absl::Status ValidateHost(const ::assisted::types::v1::Host& host);

// ---- Requests.

// The kinds of cluster registered in a status of their own: an imported cluster
// (AddHostsCluster, imported) starts in adding-hosts and names the API its day-2 hosts join
// (api_vip_dns_name, a DNS name); a DisconnectedCluster holds a configuration for an offline
// installation and starts (and stays) unmonitored, with its openshift_version. No other kind is
// imported. INVALID_ARGUMENT naming the field otherwise.
absl::Status ValidateRegisteredKind(const ::assisted::types::v1::Cluster& cluster);

// ValidateCluster and ValidateRegisteredKind, plus: cluster.name is required; pull_secret, when
// given, is valid.
absl::Status ValidateCreateClusterRequest(
    const ::assisted::inventory::v1::CreateClusterRequest& request);

// cluster.id is required; pull_secret is valid when update_mask names "pull_secret" and it is
// not empty (empty clears it). The merged cluster still needs ValidateCluster.
absl::Status ValidateUpdateClusterRequest(
    const ::assisted::inventory::v1::UpdateClusterRequest& request);

// ValidateInfraEnv, plus: infra_env.name is required; pull_secret, when given, is valid.
absl::Status ValidateCreateInfraEnvRequest(
    const ::assisted::inventory::v1::CreateInfraEnvRequest& request);

// As ValidateUpdateClusterRequest, for infra_env.
absl::Status ValidateUpdateInfraEnvRequest(
    const ::assisted::inventory::v1::UpdateInfraEnvRequest& request);

// ValidateHost, plus: host.id and host.infra_env_id are required. No status means the store's
// default (discovering, or discovering-unbound without a cluster): what a registration creates.
absl::Status ValidateCreateHostRequest(const ::assisted::inventory::v1::CreateHostRequest& request);

// host.id and host.infra_env_id are required; the merged host still needs ValidateHost.
absl::Status ValidateUpdateHostRequest(const ::assisted::inventory::v1::UpdateHostRequest& request);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_INPUT_CHECKS_H_
