// Checks and request shapes for the wizard's advanced networking, per-host static networking
// (NMState YAML) and trust bundle. The client checks what it can see at once (YAML syntax, the
// shape NMState needs, MAC and interface names, PEM framing, prefix ranges); the API has the
// last word, and its reason (which names the field, e.g.
// "infra_env.static_network_config[0].network_yaml: nmstate: …") is placed on the wizard's
// field by fieldOfReason.
import { load } from 'js-yaml';
import { cidrContains, parseCidr } from './validation';

export interface HostNetwork {
  yaml: string;
  mac: string;
  nic: string;
}

export const EMPTY_HOST: HostNetwork = {
  yaml: 'interfaces:\n  - name: eth0\n    type: ethernet\n    state: up\n    ipv4:\n      enabled: true\n      dhcp: false\n      address:\n        - ip: 192.168.122.20\n          prefix-length: 24\n',
  mac: '',
  nic: 'eth0',
};

// A problem with one host's NMState YAML, or '' when the client sees none.
export function nmstateProblem(text: string): string {
  if (!text.trim()) return 'Required: the host\'s NMState YAML (a mapping with "interfaces").';
  let document: unknown;
  try {
    document = load(text);
  } catch (e) {
    const mark = (e as { mark?: { line: number; column: number } }).mark;
    const where = mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
    return `YAML syntax error${where}: ${(e as { reason?: string }).reason ?? 'not YAML'}.`;
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) return 'Expected a mapping with "interfaces".';
  const interfaces = (document as { interfaces?: unknown }).interfaces;
  if (!Array.isArray(interfaces) || interfaces.length === 0) return '"interfaces" must be a list of at least one interface.';
  const unnamed = interfaces.findIndex((i) => !i || typeof i !== 'object' || typeof (i as { name?: unknown }).name !== 'string');
  if (unnamed >= 0) return `interfaces[${unnamed}] needs a "name".`;
  return '';
}

export function macProblem(text: string): string {
  if (!text.trim()) return 'Required: the MAC address of the host\'s interface.';
  return /^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$/.test(text.trim()) ? '' : 'Expected a MAC address such as 52:54:00:aa:bb:01.';
}

export function interfaceNameProblem(text: string): string {
  if (!text.trim()) return 'Required: the interface name the YAML uses for that MAC.';
  return /^[A-Za-z0-9._-]{1,15}$/.test(text.trim()) ? '' : '1 to 15 of A-Z a-z 0-9 . _ -';
}

// Each MAC may belong to one host only: the host that boots matches its own by MAC.
export function duplicateMacProblem(hosts: HostNetwork[], index: number): string {
  const mac = hosts[index].mac.trim().toLowerCase().replace(/-/g, ':');
  if (!mac) return '';
  const first = hosts.findIndex((h) => h.mac.trim().toLowerCase().replace(/-/g, ':') === mac);
  return first < index ? `Already given for host ${first + 1}.` : '';
}

export function trustBundleProblem(text: string): string {
  if (!text.trim()) return '';
  const begins = text.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
  const ends = text.match(/-----END CERTIFICATE-----/g)?.length ?? 0;
  if (begins === 0) return 'Expected PEM certificates (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----).';
  if (begins !== ends) return 'A certificate is cut off: every BEGIN CERTIFICATE needs its END CERTIFICATE.';
  return '';
}

// The host prefix of a cluster network: each host's slice, no shorter than the network and
// leaving each host at least 128 addresses (the inventory's own bounds).
export function hostPrefixProblem(text: string, clusterNetwork: string): string {
  if (!/^[0-9]{1,3}$/.test(text.trim())) return 'Expected a prefix length such as 23.';
  const prefix = Number(text.trim());
  const cidr = parseCidr(clusterNetwork);
  if (!cidr) return '';
  const max = (cidr.address.family === 4 ? 32 : 128) - 7;
  if (prefix < cidr.prefix || prefix > max) return `Between ${cidr.prefix} and ${max} for ${clusterNetwork.trim()}.`;
  return '';
}

// A CIDR field that must be of one address family (IPv4 first, IPv6 second in dual stack).
export function familyProblem(text: string, family: 4 | 6): string {
  const cidr = parseCidr(text);
  if (!cidr || cidr.address.family === family) return '';
  return family === 4 ? 'Expected an IPv4 block (the IPv6 one has its own field).' : 'Expected an IPv6 block such as fd00::/64.';
}

// The static_network_config the API takes, from the wizard's hosts.
export function staticNetworkConfig(hosts: HostNetwork[]) {
  return hosts.map((h) => ({ network_yaml: h.yaml, mac_interface_map: [{ mac_address: h.mac.trim(), logical_nic_name: h.nic.trim() }] }));
}

// The wizard field an API reason is about, or '' when none matches. A list's first entry is the
// IPv4 field and the second the IPv6 one (the order the wizard sends them in).
export function fieldOfReason(reason: string): string {
  const host = /static_network_config\[(\d+)\](?:\.(network_yaml|mac_interface_map)(?:\[\d+\]\.(mac_address|logical_nic_name))?)?/.exec(reason);
  if (host) {
    const part = host[3] === 'logical_nic_name' ? 'nic' : host[2] === 'mac_interface_map' ? 'mac' : 'yaml';
    return `host-${host[1]}-${part}`;
  }
  if (/additional_trust_bundle/.test(reason)) return 'trust-bundle';
  const list = /(cluster_networks|service_networks|machine_networks|api_vips|ingress_vips)\[(\d+)\](?:\.(\w+))?/.exec(reason);
  if (!list) return '';
  const names: Record<string, string> = {
    cluster_networks: list[3] === 'host_prefix' ? 'host-prefix' : 'cluster-network',
    service_networks: 'service-network',
    machine_networks: 'machine-network',
    api_vips: 'api-vip',
    ingress_vips: 'ingress-vip',
  };
  return `${names[list[1]]}${list[2] === '1' ? '-6' : ''}`;
}

// An API reason as its field shows it: without the field path the field itself stands for
// (and NMState's own prefix), e.g. 'routes.config[0].next-hop-interface: "eth9" is not …'.
export function reasonOnField(reason: string): string {
  return reason.replace(/^[A-Za-z_.]+(\[\d+\][A-Za-z_.]*)*: /, '').replace(/^nmstate: /, '');
}

// Address blocks must not overlap (the inventory refuses it): a problem naming the first earlier
// block `text` overlaps, or ''. `earlier` lists [name, CIDR] of the blocks checked before it.
export function overlapProblem(text: string, earlier: [string, string][]): string {
  const cidr = parseCidr(text);
  if (!cidr) return '';
  for (const [name, other] of earlier) {
    const block = parseCidr(other);
    if (block && (cidrContains(block, cidr.address) || cidrContains(cidr, block.address))) return `Overlaps the ${name} (${other.trim()}).`;
  }
  return '';
}
