#include "services/inventory/input_checks.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/ignition/discovery_ignition.h"
#include "lib/net/ip.h"
#include "lib/status/status_macros.h"
#include "lib/text/utf8.h"
#include "nlohmann/json.hpp"

namespace assisted::inventory {
namespace {

using ::assisted::net::Cidr;
using ::assisted::net::Family;
using ::assisted::net::FamilyName;
using ::assisted::net::IpAddress;
using ::assisted::types::v1::Cluster;
using ::assisted::types::v1::Host;
using ::assisted::types::v1::InfraEnv;
namespace inventory_v1 = ::assisted::inventory::v1;

constexpr size_t kMaxClusterNameLength = 54;
constexpr size_t kMaxLabelLength = 63;
constexpr size_t kMaxDnsNameLength = 253;
constexpr size_t kMaxInfraEnvNameLength = 253;
// The UI keeps a few preferences per cluster; this bounds what any client can park there.
constexpr size_t kMaxUiSettingsBytes = 64 << 10;
// Cluster and service networks, and each host's slice of a cluster network, hold at least
// 2^7 = 128 addresses (the reference's MinMaskDelta); a machine network at least 2.
constexpr int kMinPodHostBits = 7;
constexpr int kMinMachineHostBits = 1;
// Pull secrets nest 3 levels; anything far deeper is hostile or not a pull secret.
constexpr int kMaxJsonDepth = 32;

// ---- Messages

// Quotes user text for a message: C-escaped and cut after 64 bytes.
std::string Quote(absl::string_view text) {
  constexpr size_t kMaxShown = 64;
  const bool cut = text.size() > kMaxShown;
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, kMaxShown)), cut ? "...\"" : "\"");
}

template <typename... Parts>
absl::Status Invalid(absl::string_view field, const Parts&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", parts...));
}

// "cluster_networks[0].cidr": how one list entry refers to another in messages.
std::string EntryPath(absl::string_view list, int index, absl::string_view member) {
  return absl::StrCat(list, "[", index, "].", member);
}

std::string Path(absl::string_view prefix, absl::string_view name) {
  return absl::StrCat(prefix, ".", name);
}

// ---- DNS names and other text

bool IsDnsLabel(absl::string_view label, size_t max_length) {
  if (label.empty() || label.size() > max_length) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  return absl::c_all_of(
      label, [](char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-'; });
}

constexpr absl::string_view kLabelRule =
    "lower-case letters, digits and '-', 1 to 63 characters, starting and ending with a letter "
    "or digit";

// What is wrong with a dotted DNS name ("" when nothing is), after the quoted name.
std::string DnsNameProblem(absl::string_view name) {
  for (absl::string_view label : absl::StrSplit(name, '.')) {
    if (label.empty()) return "has an empty label (a dot at either end or two in a row)";
    if (!IsDnsLabel(label, kMaxLabelLength)) {
      return absl::StrCat("has an invalid label ", Quote(label), " (", kLabelRule, ")");
    }
  }
  if (name.size() > kMaxDnsNameLength) {
    return absl::StrCat("is ", name.size(), " characters long (at most ", kMaxDnsNameLength, ")");
  }
  return "";
}

std::string ClusterNameProblem(absl::string_view name) {
  if (IsDnsLabel(name, kMaxClusterNameLength)) return "";
  return "is not a valid DNS label (lower-case letters, digits and '-', 1 to 54 characters, "
         "starting and ending with a letter or digit)";
}

std::string HostnameProblem(absl::string_view name) {
  static constexpr absl::string_view kReserved[] = {
      "localhost",  "localhost.localdomain",   "localhost4",
      "localhost6", "localhost4.localdomain4", "localhost6.localdomain6"};
  if (absl::c_linear_search(kReserved, name)) {
    return "is reserved: the agent replaces it (choose a name unique in the cluster)";
  }
  return DnsNameProblem(name);
}

std::string BaseDomainProblem(absl::string_view domain) {
  std::string problem = DnsNameProblem(domain);
  if (!problem.empty()) return problem;
  const size_t dot = domain.rfind('.');
  if (dot == absl::string_view::npos) return "needs at least two labels (e.g. example.com)";
  const absl::string_view last = domain.substr(dot + 1);
  if (absl::c_all_of(last, absl::ascii_isdigit)) {
    return absl::StrCat("ends with the all-digit label ", Quote(last),
                        " (a domain must not read as an IP address)");
  }
  return "";
}

// Runs `problem` on a non-empty name. When the name fails only for upper case or a trailing
// dot, the message offers the spelling that passes.
absl::Status CheckName(absl::string_view name, absl::string_view field,
                       std::string (*problem)(absl::string_view)) {
  if (name.empty()) return Invalid(field, "must not be empty");
  const std::string found = problem(name);
  if (found.empty()) return absl::OkStatus();
  std::string fixed = absl::AsciiStrToLower(name);
  if (fixed.size() > 1 && fixed.back() == '.') fixed.pop_back();
  if (fixed != name && problem(fixed).empty()) {
    std::vector<absl::string_view> reasons;
    if (absl::c_any_of(name, absl::ascii_isupper)) reasons.push_back("must be lower case");
    if (fixed.size() != name.size()) reasons.push_back("must not end with a dot");
    return Invalid(field, Quote(name), " ", absl::StrJoin(reasons, " and "), " (did you mean ",
                   Quote(fixed), "?)");
  }
  return Invalid(field, Quote(name), " ", found);
}

// Strict padded standard base64 (RFC 4648 section 4). absl::Base64Unescape alone also takes
// white space and missing padding, which the other readers of these values do not.
bool DecodeBase64(absl::string_view text, std::string* out) {
  if (text.empty() || text.size() % 4 != 0) return false;
  const size_t data = text.find_last_not_of('=') + 1;
  if (text.size() - data > 2) return false;
  const bool alphabet = std::all_of(text.begin(), text.begin() + data, [](char c) {
    return absl::ascii_isalnum(c) || c == '+' || c == '/';
  });
  return alphabet && absl::Base64Unescape(text, out);
}

absl::Status ValidateOptionalUuid(absl::string_view id, absl::string_view field) {
  return id.empty() ? absl::OkStatus() : ValidateUuid(id, field);
}

absl::Status ValidateRequiredUuid(absl::string_view id, absl::string_view field) {
  return id.empty() ? Invalid(field, "required") : ValidateUuid(id, field);
}

// An address in canonical text, so that stored addresses compare equal as strings.
absl::StatusOr<IpAddress> ParseCanonicalIp(absl::string_view text, absl::string_view field) {
  if (text.empty()) return Invalid(field, "required");
  absl::StatusOr<IpAddress> ip = IpAddress::Parse(text);
  if (!ip.ok()) return Invalid(field, ip.status().message());
  if (ip->ToString() != text) {
    return Invalid(field, Quote(text), " is not in canonical form (did you mean ", ip->ToString(),
                   "?)");
  }
  return ip;
}

// ---- Pull secret

// Whether no array or object in `text` nests deeper than `max_depth`; looked at before
// parsing so that hostile input cannot make the parser or the destructor recurse deeply.
bool JsonDepthWithin(absl::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// How messages name an "auths" entry: by registry when the key looks like host[:port][/path],
// otherwise by position, so that no stray text (a secret pasted as a key) reaches a message.
std::string AuthsEntry(const std::string& registry, int position) {
  const bool printable = !registry.empty() && registry.size() <= kMaxDnsNameLength &&
                         absl::c_all_of(registry, [](char c) {
                           return absl::ascii_isalnum(c) || absl::StrContains(".-_:/", c);
                         });
  return printable ? absl::StrCat("auths[\"", registry, "\"]")
                   : absl::StrCat("auths entry ", position + 1);
}

// ---- SSH keys

// Reads one RFC 4251 "string" (a big-endian uint32 length, then the bytes) off `blob`.
bool ReadSshString(absl::string_view* blob, absl::string_view* value) {
  if (blob->size() < 4) return false;
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = length << 8 | static_cast<uint8_t>((*blob)[i]);
  if (blob->size() - 4 < length) return false;
  *value = blob->substr(4, length);
  blob->remove_prefix(4 + length);
  return true;
}

struct SshKeyType {
  absl::string_view name;
  // Strings after the type: ssh-rsa e and n; ssh-ed25519 the key; ECDSA the curve and the
  // point; the sk- variants add the FIDO application.
  int fields;
  absl::string_view curve;  // ECDSA: the curve name the blob repeats
  size_t key_size;          // bytes of the public key string, 0 when it varies (RSA)
};

constexpr std::array<SshKeyType, 7> kSshKeyTypes = {{
    {"ssh-ed25519", 1, "", 32},
    {"ssh-rsa", 2, "", 0},
    {"ecdsa-sha2-nistp256", 2, "nistp256", 65},
    {"ecdsa-sha2-nistp384", 2, "nistp384", 97},
    {"ecdsa-sha2-nistp521", 2, "nistp521", 133},
    {"sk-ssh-ed25519@openssh.com", 2, "", 32},
    {"sk-ecdsa-sha2-nistp256@openssh.com", 3, "nistp256", 65},
}};

// What is wrong with the decoded blob of a key of `type` ("" when nothing is).
std::string SshBlobProblem(const SshKeyType& type, absl::string_view blob) {
  absl::string_view encoded_type;
  if (!ReadSshString(&blob, &encoded_type)) return "key data is truncated";
  if (encoded_type != type.name) {
    return absl::StrCat("key data is not an ", type.name, " key (it encodes ", Quote(encoded_type),
                        ")");
  }
  std::vector<absl::string_view> fields(type.fields);
  for (absl::string_view& field : fields) {
    if (!ReadSshString(&blob, &field)) return "key data is truncated";
  }
  if (!blob.empty()) return "key data has trailing bytes";
  const bool ecdsa = !type.curve.empty();
  if (ecdsa && fields[0] != type.curve) {
    return absl::StrCat("key data names the curve ", Quote(fields[0]), ", not ", type.curve);
  }
  const absl::string_view key = fields[ecdsa ? 1 : 0];
  if (type.key_size != 0 && key.size() != type.key_size) {
    return absl::StrCat("key data holds a ", key.size(), "-byte public key, not ", type.key_size);
  }
  if (absl::c_any_of(fields, [](absl::string_view f) { return f.empty(); })) {
    return "key data has an empty field";
  }
  return "";
}

// What is wrong with one key line ("" when nothing is).
std::string SshLineProblem(absl::string_view line) {
  const auto ascii_control = [](char c) {
    const uint8_t byte = static_cast<uint8_t>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7f;
  };
  if (absl::c_any_of(line, ascii_control)) {
    return "contains a control character";
  }
  const std::vector<absl::string_view> words =
      absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  const absl::string_view type_name = words[0];
  if (type_name == "ssh-dss") {
    return "ssh-dss (DSA) keys are refused by current OpenSSH; use ssh-ed25519 or ssh-rsa";
  }
  const auto type =
      absl::c_find_if(kSshKeyTypes, [&](const SshKeyType& t) { return t.name == type_name; });
  if (type == kSshKeyTypes.end()) {
    return absl::StrCat(
        "unknown key type ", Quote(type_name),
        " (expected ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com "
        "or sk-ecdsa-sha2-nistp256@openssh.com; key options before the type are not supported)");
  }
  if (words.size() < 2) return absl::StrCat("no key data after ", type->name);
  std::string blob;
  if (!DecodeBase64(words[1], &blob)) return "key data is not base64";
  return SshBlobProblem(*type, blob);
}

// ---- Networks and VIPs

// A parsed network or VIP and how other entries refer to it ("cluster_networks[0].cidr").
struct Network {
  std::string path;
  Cidr cidr;
};

struct Vip {
  std::string path;
  IpAddress ip;
};

int Bits(Family family) { return family == Family::kIpv4 ? 32 : 128; }

// Parses one cidr field onto `out`: required, canonical, not at the unspecified address, and
// with at least 2^min_host_bits addresses.
absl::Status ParseNetwork(absl::string_view prefix, absl::string_view list, int index,
                          absl::string_view text, int min_host_bits, std::vector<Network>* out) {
  const std::string path = EntryPath(list, index, "cidr");
  const std::string field = Path(prefix, path);
  if (text.empty()) return Invalid(field, "required");
  absl::StatusOr<Cidr> cidr = Cidr::Parse(text);
  if (!cidr.ok()) return Invalid(field, cidr.status().message());
  if (cidr->ToString() != text) {
    return Invalid(field, Quote(text), " is not in canonical form (did you mean ", cidr->ToString(),
                   "?)");
  }
  const std::array<uint8_t, 16>& bytes = cidr->network().bytes();
  if (absl::c_all_of(bytes, [](uint8_t b) { return b == 0; })) {
    return Invalid(field, text, " starts at the unspecified address ", cidr->network().ToString());
  }
  const int max_prefix = Bits(cidr->family()) - min_host_bits;
  if (cidr->prefix_length() > max_prefix) {
    return Invalid(field, text, " is too small (at most /", max_prefix, " for ",
                   FamilyName(cidr->family()), ": at least ", 1 << min_host_bits, " addresses)");
  }
  out->push_back({path, *cidr});
  return absl::OkStatus();
}

absl::Status ValidateHostPrefix(absl::string_view prefix, int index, int host_prefix,
                                const Cidr& cidr) {
  const std::string field = Path(prefix, EntryPath("cluster_networks", index, "host_prefix"));
  const int max_prefix = Bits(cidr.family()) - kMinPodHostBits;
  if (host_prefix == 0) {
    return Invalid(field, "required (the prefix length of each host's slice of ", cidr.ToString(),
                   ", e.g. ", cidr.family() == Family::kIpv4 ? 23 : 64, ")");
  }
  if (host_prefix < cidr.prefix_length()) {
    return Invalid(field, host_prefix, " is shorter than the prefix of ", cidr.ToString(),
                   " (at least ", cidr.prefix_length(), ")");
  }
  if (host_prefix > max_prefix) {
    return Invalid(field, host_prefix, " leaves each host fewer than 128 addresses (at most ",
                   max_prefix, " for ", FamilyName(cidr.family()), ")");
  }
  return absl::OkStatus();
}

// Parses a VIP list onto `out`: canonical addresses, none already in `used` (the VIPs of both
// lists seen so far), at most one per family.
absl::Status ParseVips(absl::string_view prefix, absl::string_view list,
                       const google::protobuf::RepeatedPtrField<types::v1::Vip>& vips,
                       std::vector<Vip>* used, std::vector<Vip>* out) {
  for (int i = 0; i < vips.size(); ++i) {
    const std::string path = EntryPath(list, i, "ip");
    const std::string field = Path(prefix, path);
    ASSIGN_OR_RETURN(const IpAddress ip, ParseCanonicalIp(vips[i].ip(), field));
    for (const Vip& other : *used) {
      if (other.ip == ip) return Invalid(field, ip.ToString(), " is already used by ", other.path);
    }
    for (const Vip& other : *out) {
      if (other.ip.family() == ip.family()) {
        return Invalid(field, "a second ", FamilyName(ip.family()), " VIP after ", other.path,
                       " (at most one per family)");
      }
    }
    used->push_back({path, ip});
    out->push_back({path, ip});
  }
  return absl::OkStatus();
}

// One list as the family rules see it.
struct FamilyList {
  absl::string_view name;
  bool is_network;  // network lists follow the dual-stack rule, VIP lists do not
  std::vector<Family> families;
  std::string first_path;  // e.g. "api_vips[0].ip"
  std::string first_text;  // e.g. "192.168.111.5"
};

Family FamilyOf(const Network& network) { return network.cidr.family(); }
Family FamilyOf(const Vip& vip) { return vip.ip.family(); }
std::string TextOf(const Network& network) { return network.cidr.ToString(); }
std::string TextOf(const Vip& vip) { return vip.ip.ToString(); }

template <typename Entry>
FamilyList Families(absl::string_view name, const std::vector<Entry>& entries) {
  FamilyList list{name, std::is_same_v<Entry, Network>, {}, "", ""};
  for (const Entry& entry : entries) list.families.push_back(FamilyOf(entry));
  if (!entries.empty()) {
    list.first_path = entries[0].path;
    list.first_text = TextOf(entries[0]);
  }
  return list;
}

bool HasBothFamilies(const FamilyList& list) {
  return absl::c_linear_search(list.families, Family::kIpv4) &&
         absl::c_linear_search(list.families, Family::kIpv6);
}

absl::Status ValidateFamilies(absl::string_view prefix, const std::vector<FamilyList>& lists) {
  const FamilyList* primary = nullptr;
  const FamilyList* dual = nullptr;
  for (const FamilyList& list : lists) {
    if (list.families.empty()) continue;
    if (primary == nullptr) {
      primary = &list;
    } else if (list.families[0] != primary->families[0]) {
      return Invalid(Path(prefix, list.first_path), list.first_text, " is ",
                     FamilyName(list.families[0]), " but ", primary->first_path, " (",
                     primary->first_text, ") is ", FamilyName(primary->families[0]),
                     "; every network and VIP list starts with the same (primary) family");
    }
    if (list.is_network && HasBothFamilies(list)) {
      if (list.families.size() != 2) {
        return Invalid(Path(prefix, list.name),
                       "a dual-stack list holds exactly one IPv4 and one IPv6 network (got ",
                       list.families.size(), " networks)");
      }
      if (dual == nullptr) dual = &list;
    }
  }
  if (dual == nullptr) return absl::OkStatus();
  for (const FamilyList& list : lists) {
    if (list.is_network && !list.families.empty() && !HasBothFamilies(list)) {
      return Invalid(Path(prefix, list.name), "the cluster is dual-stack (", dual->name,
                     " has IPv4 and IPv6), so this list needs one IPv4 and one IPv6 network");
    }
  }
  return absl::OkStatus();
}

uint32_t Ipv4Value(const IpAddress& ip) {
  const auto& b = ip.bytes();
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | uint32_t{b[3]};
}

// A VIP must lie in a machine network of its family, and not on an IPv4 block's network or
// broadcast address (blocks of 4 or more addresses; /31 and /32 have neither).
absl::Status ValidateVipPlacement(absl::string_view prefix, const Vip& vip,
                                  const std::vector<Network>& machine_networks) {
  const std::string field = Path(prefix, vip.path);
  std::vector<std::string> same_family;
  for (const Network& network : machine_networks) {
    if (network.cidr.family() != vip.ip.family()) continue;
    same_family.push_back(network.cidr.ToString());
    if (!network.cidr.Contains(vip.ip)) continue;
    if (vip.ip.family() == Family::kIpv4 && network.cidr.prefix_length() <= 30) {
      const uint32_t host_mask = 0xffffffffu >> network.cidr.prefix_length();
      const uint32_t host = Ipv4Value(vip.ip) & host_mask;
      if (host == 0 || host == host_mask) {
        return Invalid(field, vip.ip.ToString(), " is the ", host == 0 ? "network" : "broadcast",
                       " address of ", network.path, " (", network.cidr.ToString(), ")");
      }
    }
    return absl::OkStatus();
  }
  return Invalid(field, vip.ip.ToString(), " is not inside any machine network (",
                 same_family.empty() ? absl::StrCat("none is ", FamilyName(vip.ip.family()))
                                     : absl::StrJoin(same_family, ", "),
                 ")");
}

absl::Status ValidateNetworking(absl::string_view prefix, const Cluster& cluster) {
  std::vector<Network> cluster_networks, service_networks, machine_networks;
  for (int i = 0; i < cluster.cluster_networks_size(); ++i) {
    const types::v1::ClusterNetwork& entry = cluster.cluster_networks(i);
    RETURN_IF_ERROR(ParseNetwork(prefix, "cluster_networks", i, entry.cidr(), kMinPodHostBits,
                                 &cluster_networks));
    RETURN_IF_ERROR(
        ValidateHostPrefix(prefix, i, entry.host_prefix(), cluster_networks.back().cidr));
  }
  for (int i = 0; i < cluster.service_networks_size(); ++i) {
    RETURN_IF_ERROR(ParseNetwork(prefix, "service_networks", i, cluster.service_networks(i).cidr(),
                                 kMinPodHostBits, &service_networks));
  }
  for (int i = 0; i < cluster.machine_networks_size(); ++i) {
    RETURN_IF_ERROR(ParseNetwork(prefix, "machine_networks", i, cluster.machine_networks(i).cidr(),
                                 kMinMachineHostBits, &machine_networks));
  }
  std::vector<Vip> vips, api_vips, ingress_vips;
  RETURN_IF_ERROR(ParseVips(prefix, "api_vips", cluster.api_vips(), &vips, &api_vips));
  RETURN_IF_ERROR(ParseVips(prefix, "ingress_vips", cluster.ingress_vips(), &vips, &ingress_vips));

  RETURN_IF_ERROR(ValidateFamilies(
      prefix, {Families("cluster_networks", cluster_networks),
               Families("service_networks", service_networks),
               Families("machine_networks", machine_networks), Families("api_vips", api_vips),
               Families("ingress_vips", ingress_vips)}));

  std::vector<Network> networks = cluster_networks;
  networks.insert(networks.end(), service_networks.begin(), service_networks.end());
  networks.insert(networks.end(), machine_networks.begin(), machine_networks.end());
  for (size_t later = 0; later < networks.size(); ++later) {
    for (size_t earlier = 0; earlier < later; ++earlier) {
      if (networks[later].cidr.Overlaps(networks[earlier].cidr)) {
        return Invalid(Path(prefix, networks[later].path), networks[later].cidr.ToString(),
                       " overlaps ", networks[earlier].path, " (",
                       networks[earlier].cidr.ToString(), ")");
      }
    }
  }
  if (!machine_networks.empty()) {
    for (const Vip& vip : vips)
      RETURN_IF_ERROR(ValidateVipPlacement(prefix, vip, machine_networks));
  }
  return absl::OkStatus();
}

// The pull secret of a create request, or of an update whose mask names it; empty means none
// (or, in an update, clear it).
absl::Status ValidateGivenPullSecret(absl::string_view pull_secret) {
  return pull_secret.empty() ? absl::OkStatus() : ValidatePullSecret(pull_secret);
}

bool MaskNames(const google::protobuf::FieldMask& mask, absl::string_view path) {
  return absl::c_any_of(mask.paths(), [&](const std::string& p) { return p == path; });
}

}  // namespace

absl::Status ValidateUuid(absl::string_view id, absl::string_view field) {
  static constexpr size_t kGroupSizes[] = {8, 4, 4, 4, 12};
  const std::vector<absl::string_view> groups = absl::StrSplit(id, '-');
  bool shape = groups.size() == 5;
  for (size_t i = 0; shape && i < groups.size(); ++i) {
    shape = groups[i].size() == kGroupSizes[i] && absl::c_all_of(groups[i], absl::ascii_isxdigit);
  }
  if (!shape) {
    return Invalid(field, Quote(id),
                   " is not a UUID (8-4-4-4-12 hexadecimal digits, e.g. "
                   "3fa85f64-5717-4562-b3fc-2c963f66afa6)");
  }
  if (absl::c_any_of(id, absl::ascii_isupper)) {
    return Invalid(field, Quote(id), " must be lower case (did you mean ",
                   absl::AsciiStrToLower(id), "?)");
  }
  if (id == "00000000-0000-0000-0000-000000000000") {
    return Invalid(field, "the nil UUID is not an id");
  }
  return absl::OkStatus();
}

absl::Status ValidateClusterName(absl::string_view name, absl::string_view field) {
  return CheckName(name, field, ClusterNameProblem);
}

absl::Status ValidateInfraEnvName(absl::string_view name, absl::string_view field) {
  if (name.empty()) return Invalid(field, "must not be empty");
  size_t characters = 0;
  for (size_t pos = 0; pos < name.size(); ++characters) {
    uint32_t code_point = 0;
    if (!text::NextCodePoint(name, &pos, &code_point)) {
      return Invalid(field, Quote(name), " is not valid UTF-8");
    }
    if (text::IsControlCharacter(code_point))
      return Invalid(field, Quote(name), " contains a control character");
  }
  if (characters > kMaxInfraEnvNameLength) {
    return Invalid(field, Quote(name), " is ", characters, " characters long (at most ",
                   kMaxInfraEnvNameLength, ")");
  }
  if (absl::ascii_isspace(name.front()) || absl::ascii_isspace(name.back())) {
    return Invalid(field, Quote(name), " must not start or end with white space");
  }
  return absl::OkStatus();
}

absl::Status ValidateHostname(absl::string_view hostname, absl::string_view field) {
  return CheckName(hostname, field, HostnameProblem);
}

absl::Status ValidateBaseDomain(absl::string_view domain, absl::string_view field) {
  return CheckName(domain, field, BaseDomainProblem);
}

absl::Status ValidatePullSecret(absl::string_view pull_secret) {
  constexpr absl::string_view kField = "pull_secret";
  const absl::string_view text = absl::StripAsciiWhitespace(pull_secret);
  if (text.empty()) return Invalid(kField, "must not be empty");
  if (!JsonDepthWithin(text, kMaxJsonDepth)) {
    return Invalid(kField, "is not a pull secret (JSON nested more than ", kMaxJsonDepth,
                   " levels deep)");
  }
  // ordered_json keeps the document's order, so "auths entry 2" means what the user sees.
  const nlohmann::ordered_json json =
      nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return Invalid(kField, "is not valid JSON (paste the pull secret file as downloaded)");
  }
  if (!json.is_object()) return Invalid(kField, "must be a JSON object with an \"auths\" object");
  const auto auths = json.find("auths");
  if (auths == json.end() || !auths->is_object() || auths->empty()) {
    return Invalid(kField, "has no \"auths\" object with at least one registry");
  }
  int position = 0;
  for (auto it = auths->begin(); it != auths->end(); ++it, ++position) {
    const std::string entry = AuthsEntry(it.key(), position);
    if (it.key().empty()) return Invalid(kField, entry, " has an empty registry name");
    if (!it.value().is_object()) return Invalid(kField, entry, " is not an object");
    const auto auth = it.value().find("auth");
    if (auth == it.value().end() || !auth->is_string()) {
      return Invalid(kField, entry, " has no \"auth\" string (base64 of user:password)");
    }
    std::string credentials;
    if (!DecodeBase64(auth->get_ref<const std::string&>(), &credentials)) {
      return Invalid(kField, entry, ".auth is not base64");
    }
    const size_t colon = credentials.find(':');
    if (colon == std::string::npos || colon == 0) {
      return Invalid(kField, entry, ".auth does not decode to user:password");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSshPublicKeys(absl::string_view keys, absl::string_view field) {
  int line_number = 0;
  int key_count = 0;
  for (absl::string_view line : absl::StrSplit(keys, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "#")) continue;
    const std::string problem = SshLineProblem(line);
    if (!problem.empty()) return Invalid(field, "line ", line_number, ": ", problem);
    ++key_count;
  }
  if (key_count == 0) return Invalid(field, "holds no key (only blank or comment lines)");
  return absl::OkStatus();
}

absl::Status ValidateCluster(const Cluster& cluster) {
  constexpr absl::string_view kPrefix = "cluster";
  RETURN_IF_ERROR(ValidateOptionalUuid(cluster.id(), "cluster.id"));
  if (!cluster.name().empty()) {
    RETURN_IF_ERROR(ValidateClusterName(cluster.name(), "cluster.name"));
  }
  if (!cluster.base_dns_domain().empty()) {
    RETURN_IF_ERROR(ValidateBaseDomain(cluster.base_dns_domain(), "cluster.base_dns_domain"));
    // api-int.<name>.<base_dns_domain> is the longest name the installer derives from both.
    const size_t longest = cluster.name().empty()
                               ? 0
                               : absl::string_view("api-int.").size() + cluster.name().size() + 1 +
                                     cluster.base_dns_domain().size();
    if (longest > kMaxDnsNameLength) {
      return Invalid("cluster.base_dns_domain", "api-int.", cluster.name(), ".",
                     cluster.base_dns_domain(), " would be ", longest, " characters long (at most ",
                     kMaxDnsNameLength, ")");
    }
  }
  if (!cluster.ssh_public_key().empty()) {
    RETURN_IF_ERROR(ValidateSshPublicKeys(cluster.ssh_public_key(), "cluster.ssh_public_key"));
  }
  if (cluster.ui_settings().size() > kMaxUiSettingsBytes) {
    return Invalid("cluster.ui_settings", cluster.ui_settings().size(), " bytes (at most ",
                   kMaxUiSettingsBytes, ")");
  }
  return ValidateNetworking(kPrefix, cluster);
}

absl::Status ValidateInfraEnv(const InfraEnv& infra_env) {
  RETURN_IF_ERROR(ValidateOptionalUuid(infra_env.id(), "infra_env.id"));
  if (!infra_env.name().empty()) {
    RETURN_IF_ERROR(ValidateInfraEnvName(infra_env.name(), "infra_env.name"));
  }
  RETURN_IF_ERROR(ValidateOptionalUuid(infra_env.cluster_id(), "infra_env.cluster_id"));
  if (!infra_env.ssh_authorized_key().empty()) {
    RETURN_IF_ERROR(
        ValidateSshPublicKeys(infra_env.ssh_authorized_key(), "infra_env.ssh_authorized_key"));
  }
  if (!infra_env.rendezvous_ip().empty()) {
    RETURN_IF_ERROR(
        ParseCanonicalIp(infra_env.rendezvous_ip(), "infra_env.rendezvous_ip").status());
  }
  // What could never become a discovery image is refused as it is stored, created or updated,
  // in the image service's own words, rather than at the first download.
  return discovery::CheckDiscoveryInputs(infra_env);
}

absl::Status ValidateHost(const Host& host) {
  RETURN_IF_ERROR(ValidateOptionalUuid(host.id(), "host.id"));
  RETURN_IF_ERROR(ValidateOptionalUuid(host.infra_env_id(), "host.infra_env_id"));
  RETURN_IF_ERROR(ValidateOptionalUuid(host.cluster_id(), "host.cluster_id"));
  if (!host.requested_hostname().empty()) {
    RETURN_IF_ERROR(ValidateHostname(host.requested_hostname(), "host.requested_hostname"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRegisteredKind(const Cluster& cluster) {
  switch (cluster.kind()) {
    case types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER:
      if (!cluster.imported() || cluster.status() != types::v1::CLUSTER_STATUS_ADDING_HOSTS) {
        return Invalid("cluster.kind",
                       "an AddHostsCluster is registered only as imported, in adding-hosts");
      }
      if (cluster.api_vip_dns_name().empty()) {
        return Invalid("cluster.api_vip_dns_name", "required for an imported cluster");
      }
      return ValidateBaseDomain(cluster.api_vip_dns_name(), "cluster.api_vip_dns_name");
    case types::v1::CLUSTER_KIND_DISCONNECTED_CLUSTER:
      if (cluster.status() != types::v1::CLUSTER_STATUS_UNMONITORED) {
        return Invalid("cluster.status", "a DisconnectedCluster is registered unmonitored");
      }
      if (cluster.openshift_version().empty()) {
        return Invalid("cluster.openshift_version", "required for a disconnected cluster");
      }
      return absl::OkStatus();
    default:
      if (cluster.imported()) return Invalid("cluster.imported", "only an AddHostsCluster is");
      return absl::OkStatus();
  }
}

absl::Status ValidateCreateClusterRequest(const inventory_v1::CreateClusterRequest& request) {
  if (request.cluster().name().empty()) return Invalid("cluster.name", "required");
  RETURN_IF_ERROR(ValidateCluster(request.cluster()));
  RETURN_IF_ERROR(ValidateRegisteredKind(request.cluster()));
  return ValidateGivenPullSecret(request.pull_secret());
}

absl::Status ValidateUpdateClusterRequest(const inventory_v1::UpdateClusterRequest& request) {
  RETURN_IF_ERROR(ValidateRequiredUuid(request.cluster().id(), "cluster.id"));
  if (!MaskNames(request.update_mask(), "pull_secret")) return absl::OkStatus();
  return ValidateGivenPullSecret(request.pull_secret());
}

absl::Status ValidateCreateInfraEnvRequest(const inventory_v1::CreateInfraEnvRequest& request) {
  if (request.infra_env().name().empty()) return Invalid("infra_env.name", "required");
  RETURN_IF_ERROR(ValidateInfraEnv(request.infra_env()));
  return ValidateGivenPullSecret(request.pull_secret());
}

absl::Status ValidateUpdateInfraEnvRequest(const inventory_v1::UpdateInfraEnvRequest& request) {
  RETURN_IF_ERROR(ValidateRequiredUuid(request.infra_env().id(), "infra_env.id"));
  if (!MaskNames(request.update_mask(), "pull_secret")) return absl::OkStatus();
  return ValidateGivenPullSecret(request.pull_secret());
}

absl::Status ValidateCreateHostRequest(const inventory_v1::CreateHostRequest& request) {
  RETURN_IF_ERROR(ValidateRequiredUuid(request.host().id(), "host.id"));
  RETURN_IF_ERROR(ValidateRequiredUuid(request.host().infra_env_id(), "host.infra_env_id"));
  return ValidateHost(request.host());
}

absl::Status ValidateUpdateHostRequest(const inventory_v1::UpdateHostRequest& request) {
  RETURN_IF_ERROR(ValidateRequiredUuid(request.host().id(), "host.id"));
  return ValidateRequiredUuid(request.host().infra_env_id(), "host.infra_env_id");
}

}  // namespace assisted::inventory
