import { describe, expect, it } from 'vitest';
import {
  EMPTY_HOST,
  duplicateMacProblem,
  fieldOfReason,
  hostPrefixProblem,
  interfaceNameProblem,
  macProblem,
  nmstateProblem,
  overlapProblem,
  reasonOnField,
  staticNetworkConfig,
  trustBundleProblem,
} from './hostNetworking';

describe('nmstateProblem', () => {
  it('accepts the template a new host starts with', () => expect(nmstateProblem(EMPTY_HOST.yaml)).toBe(''));
  it('names the line of a YAML syntax error', () =>
    expect(nmstateProblem('interfaces:\n  - name: eth0\n   type: ethernet\n')).toMatch(/^YAML syntax error at line 3/));
  it('wants a mapping with a list of named interfaces', () => {
    expect(nmstateProblem('- eth0')).toBe('Expected a mapping with "interfaces".');
    expect(nmstateProblem('dns-resolver: {}')).toMatch(/"interfaces" must be a list/);
    expect(nmstateProblem('interfaces:\n  - type: ethernet\n')).toBe('interfaces[0] needs a "name".');
  });
  it('requires some YAML', () => expect(nmstateProblem('  ')).toMatch(/^Required/));
});

describe('MAC and interface checks', () => {
  it('takes colon or hyphen MACs', () => {
    expect(macProblem('52:54:00:aa:bb:01')).toBe('');
    expect(macProblem('52-54-00-AA-BB-01')).toBe('');
    expect(macProblem('52:54:00:aa:bb')).toMatch(/Expected a MAC/);
  });
  it('flags a MAC given to an earlier host, however spelt', () => {
    const hosts = [{ ...EMPTY_HOST, mac: '52:54:00:aa:bb:01' }, { ...EMPTY_HOST, mac: '52-54-00-AA-BB-01' }];
    expect(duplicateMacProblem(hosts, 0)).toBe('');
    expect(duplicateMacProblem(hosts, 1)).toBe('Already given for host 1.');
  });
  it('keeps interface names to what the kernel allows', () => {
    expect(interfaceNameProblem('enp1s0')).toBe('');
    expect(interfaceNameProblem('a-name-longer-than-15')).not.toBe('');
  });
});

describe('trustBundleProblem', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it('is optional', () => expect(trustBundleProblem('')).toBe(''));
  it('wants PEM framing, whole', () => {
    expect(trustBundleProblem(pem)).toBe('');
    expect(trustBundleProblem('not a certificate')).toMatch(/Expected PEM/);
    expect(trustBundleProblem(pem + '-----BEGIN CERTIFICATE-----\nMIIB')).toMatch(/cut off/);
  });
});

describe('hostPrefixProblem', () => {
  it('uses the inventory bounds', () => {
    expect(hostPrefixProblem('23', '10.128.0.0/14')).toBe('');
    expect(hostPrefixProblem('13', '10.128.0.0/14')).toBe('Between 14 and 25 for 10.128.0.0/14.');
    expect(hostPrefixProblem('26', '10.128.0.0/14')).toBe('Between 14 and 25 for 10.128.0.0/14.');
    expect(hostPrefixProblem('64', 'fd01::/48')).toBe('');
    expect(hostPrefixProblem('x', 'fd01::/48')).toMatch(/Expected a prefix length/);
  });
});

describe('fieldOfReason', () => {
  it('places static networking reasons on the host and part named', () => {
    expect(fieldOfReason('infra_env.static_network_config[1].network_yaml: nmstate: routes.config[0]: …')).toBe('host-1-yaml');
    expect(fieldOfReason('infra_env.static_network_config[0].mac_interface_map[0].mac_address: "x" is not a MAC')).toBe('host-0-mac');
    expect(fieldOfReason('infra_env.static_network_config[2].mac_interface_map[0].logical_nic_name: bad')).toBe('host-2-nic');
  });
  it('places network list reasons on the IPv4 or IPv6 field by index', () => {
    expect(fieldOfReason('cluster.cluster_networks[1].host_prefix: 120 leaves each host …')).toBe('host-prefix-6');
    expect(fieldOfReason('cluster.service_networks[0].cidr: overlaps machine_networks[0]')).toBe('service-network');
    expect(fieldOfReason('cluster.api_vips[1].ip: not in the machine network')).toBe('api-vip-6');
    expect(fieldOfReason('infra_env.additional_trust_bundle: certificate 1 is not a valid PEM X.509 certificate')).toBe('trust-bundle');
  });
  it('gives nothing for a reason about no wizard field', () => expect(fieldOfReason('name: already taken')).toBe(''));
});

describe('staticNetworkConfig', () => {
  it('maps each host to the API shape', () =>
    expect(staticNetworkConfig([{ yaml: 'interfaces: []', mac: ' 52:54:00:aa:bb:01 ', nic: 'eth0' }])).toEqual([
      { network_yaml: 'interfaces: []', mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
    ]));
});

describe('reasonOnField', () => {
  it('drops the field path and the NMState prefix, keeps the YAML path', () =>
    expect(reasonOnField('infra_env.static_network_config[0].network_yaml: nmstate: routes.config[0].next-hop-interface: "eth9" is not an interface')).toBe(
      'routes.config[0].next-hop-interface: "eth9" is not an interface',
    ));
  it('keeps a reason without a path', () => expect(reasonOnField('certificate 1 is bad')).toBe('certificate 1 is bad'));
});

describe('overlapProblem', () => {
  it('names the first earlier block either way round, only within a family', () => {
    expect(overlapProblem('10.128.0.0/14', [['machine network', '192.168.122.0/24']])).toBe('');
    expect(overlapProblem('10.0.0.0/8', [['machine network', '10.1.2.0/24']])).toBe('Overlaps the machine network (10.1.2.0/24).');
    expect(overlapProblem('10.1.2.0/24', [['cluster network', '10.0.0.0/8']])).toBe('Overlaps the cluster network (10.0.0.0/8).');
    expect(overlapProblem('fd00::/48', [['machine network', '10.0.0.0/8']])).toBe('');
  });
});
