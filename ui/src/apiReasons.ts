// Where the API's reasons belong in the wizard. Every reason of an input check starts with the
// path of the field it is about, as the API user sees it ("cluster.api_vips[0].ip: …",
// "infra_env.static_network_config[1].network_yaml: nmstate: …", "pull_secret: …"); these
// map that path to the wizard's field and strip it for display next to the field. The words
// themselves are the API's: the wizard has none of its own for what the API checks.

// The field path a reason starts with ('' when it starts with none), without the resource
// prefix ("cluster." / "infra_env.") the inventory's messages carry.
function pathOf(reason: string): string {
  const path = /^([A-Za-z_][\w.]*(?:\[\d+\][\w.]*)*): /.exec(reason)?.[1] ?? '';
  return path.replace(/^(cluster|infra_env)\./, '');
}

// Scalar fields: the API's name, the wizard's field id. (The version is picked from the API's
// own list, so a reason about it stands apart, at the top of the step.)
const FIELDS: Record<string, string> = {
  name: 'name',
  base_dns_domain: 'domain',
  pull_secret: 'pull-secret',
  ssh_public_key: 'ssh-key',
  ssh_authorized_key: 'ssh-key',
  http_proxy: 'http-proxy',
  additional_ntp_source: 'ntp',
  additional_trust_bundle: 'trust-bundle',
};

// Network lists: the API's name, the wizard's field id of the list's first (IPv4) entry; the
// second entry is the IPv6 field, "-6" (the order the wizard sends them in).
const LISTS: Record<string, string> = {
  cluster_networks: 'cluster-network',
  service_networks: 'service-network',
  machine_networks: 'machine-network',
  api_vips: 'api-vip',
  ingress_vips: 'ingress-vip',
};

// The wizard field an API reason is about, or '' when none matches.
export function fieldOfReason(reason: string): string {
  const path = pathOf(reason);
  const host = /^static_network_config\[(\d+)\](?:\.(network_yaml|mac_interface_map)(?:\[\d+\]\.(mac_address|logical_nic_name))?)?/.exec(path);
  if (host) {
    const part = host[3] === 'logical_nic_name' ? 'nic' : host[2] === 'mac_interface_map' ? 'mac' : 'yaml';
    return `host-${host[1]}-${part}`;
  }
  const list = /^(\w+)\[(\d+)\](?:\.(\w+))?/.exec(path);
  if (list && list[1] in LISTS) {
    const field = list[1] === 'cluster_networks' && list[3] === 'host_prefix' ? 'host-prefix' : LISTS[list[1]];
    return `${field}${list[2] === '1' ? '-6' : ''}`;
  }
  const head = /^\w+/.exec(path)?.[0] ?? '';
  return FIELDS[head] ?? '';
}

// An API reason as its field shows it: without the field path the field itself stands for
// (and NMState's own prefix), e.g. 'routes.config[0].next-hop-interface: "eth9" is not …'.
export function reasonOnField(reason: string): string {
  const path = /^([A-Za-z_][\w.]*(?:\[\d+\][\w.]*)*): /.exec(reason);
  return (path ? reason.slice(path[0].length) : reason).replace(/^nmstate: /, '');
}
