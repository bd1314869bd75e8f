// Inline checks of what the networking step asks for, so a mistake shows next to its field
// before anything is sent (the API checks again and has the last word).

function ipv4ToBigInt(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function ipv6ToBigInt(text: string): bigint | null {
  if (!/^[0-9a-fA-F:]+$/.test(text) || text.split('::').length > 2) return null;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...headGroups, ...Array(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

export interface Address {
  family: 4 | 6;
  value: bigint;
}

export function parseIp(text: string): Address | null {
  const v4 = ipv4ToBigInt(text.trim());
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = ipv6ToBigInt(text.trim());
  return v6 === null ? null : { family: 6, value: v6 };
}

export interface Cidr {
  address: Address;
  prefix: number;
}

export function parseCidr(text: string): Cidr | null {
  const [ip, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || prefixText === undefined || !/^[0-9]{1,3}$/.test(prefixText)) return null;
  const address = parseIp(ip);
  const prefix = Number(prefixText);
  if (!address || prefix > (address.family === 4 ? 32 : 128)) return null;
  return { address, prefix };
}

function bits(family: 4 | 6): bigint {
  return family === 4 ? 32n : 128n;
}

export function cidrContains(cidr: Cidr, ip: Address): boolean {
  if (cidr.address.family !== ip.family) return false;
  const shift = bits(ip.family) - BigInt(cidr.prefix);
  return cidr.address.value >> shift === ip.value >> shift;
}

// A problem with a CIDR field, or '' when it is fine.
export function cidrProblem(text: string): string {
  if (!text.trim()) return 'Required.';
  const cidr = parseCidr(text);
  if (!cidr) return 'Expected an address block such as 192.168.122.0/24 or fd00::/64.';
  const shift = bits(cidr.address.family) - BigInt(cidr.prefix);
  if ((cidr.address.value >> shift) << shift !== cidr.address.value) return 'Host bits are set: use the network address of the block.';
  return '';
}

// A problem with a VIP given the machine network and the other VIP, or '' when it is fine.
export function vipProblem(text: string, machineNetwork: string, other: string, otherName: string): string {
  if (!text.trim()) return 'Required.';
  const ip = parseIp(text);
  if (!ip) return 'Not an IP address.';
  const cidr = parseCidr(machineNetwork);
  if (cidr && cidrProblem(machineNetwork) === '') {
    if (!cidrContains(cidr, ip)) return `Not inside the machine network ${machineNetwork.trim()}.`;
    const shift = bits(ip.family) - BigInt(cidr.prefix);
    const hostPart = ip.value & ((1n << shift) - 1n);
    if (shift > 1n && (hostPart === 0n || (ip.family === 4 && hostPart === (1n << shift) - 1n)))
      return 'The network or broadcast address cannot be a VIP.';
  }
  const otherIp = parseIp(other);
  if (otherIp && otherIp.family === ip.family && otherIp.value === ip.value) return `Must differ from the ${otherName}.`;
  return '';
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function clusterNameProblem(name: string): string {
  if (!name) return 'Required.';
  if (name.length > 54) return 'At most 54 characters.';
  if (!DNS_LABEL.test(name)) return 'Lower-case letters, digits and hyphens; start and end with a letter or digit.';
  return '';
}

export function baseDomainProblem(domain: string): string {
  if (!domain) return 'Required.';
  if (!domain.split('.').every((label) => DNS_LABEL.test(label))) return 'Expected a DNS domain such as example.com.';
  return '';
}

export function pullSecretProblem(text: string): string {
  if (!text.trim()) return 'Required: paste the pull secret (JSON with "auths").';
  try {
    const parsed = JSON.parse(text) as { auths?: unknown };
    if (!parsed || typeof parsed.auths !== 'object') return 'Expected JSON with an "auths" object.';
  } catch {
    return 'Not valid JSON.';
  }
  return '';
}

export function sshKeyProblem(text: string): string {
  if (!text.trim()) return '';
  return /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( .*)?$/.test(text.trim())
    ? ''
    : 'Expected one public key line such as "ssh-ed25519 AAAA… user".';
}
