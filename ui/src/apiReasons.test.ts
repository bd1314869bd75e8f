import { describe, expect, it } from 'vitest';
import { fieldOfReason, reasonOnField } from './apiReasons';

describe('fieldOfReason', () => {
  it('places static networking reasons on the host and part named', () => {
    expect(fieldOfReason('infra_env.static_network_config[1].network_yaml: nmstate: routes.config[0]: …')).toBe('host-1-yaml');
    expect(fieldOfReason('infra_env.static_network_config[0].mac_interface_map[0].mac_address: "x" is not a MAC')).toBe('host-0-mac');
    expect(fieldOfReason('infra_env.static_network_config[2].mac_interface_map[0].logical_nic_name: bad')).toBe('host-2-nic');
  });
  it('places network list reasons on the IPv4 or IPv6 field by index', () => {
    expect(fieldOfReason('cluster.cluster_networks[1].host_prefix: 120 leaves each host …')).toBe('host-prefix-6');
    expect(fieldOfReason('cluster.cluster_networks[0].cidr: "10.0.0.1/8" has host bits set')).toBe('cluster-network');
    expect(fieldOfReason('cluster.service_networks[0].cidr: overlaps machine_networks[0]')).toBe('service-network');
    expect(fieldOfReason('cluster.machine_networks[1].cidr: required')).toBe('machine-network-6');
    expect(fieldOfReason('cluster.api_vips[1].ip: not in the machine network')).toBe('api-vip-6');
    expect(fieldOfReason('cluster.ingress_vips[0].ip: 192.168.122.5 is already used by api_vips[0]')).toBe('ingress-vip');
  });
  it('places the scalar fields of both resources, with or without the resource prefix', () => {
    expect(fieldOfReason('cluster.name: required')).toBe('name');
    expect(fieldOfReason('name: required when registering a cluster')).toBe('name');
    expect(fieldOfReason('cluster.base_dns_domain: "Example.com" …')).toBe('domain');
    expect(fieldOfReason('pull_secret: must not be empty')).toBe('pull-secret');
    expect(fieldOfReason('pull_secret: auths["r.io"].auth: not base64')).toBe('pull-secret');
    expect(fieldOfReason('cluster.ssh_public_key: line 1: …')).toBe('ssh-key');
    expect(fieldOfReason('infra_env.ssh_authorized_key: line 1: …')).toBe('ssh-key');
    expect(fieldOfReason('cluster.http_proxy: must be an http:// URL')).toBe('http-proxy');
    expect(fieldOfReason('infra_env.additional_trust_bundle: certificate 1 is not a valid PEM X.509 certificate')).toBe('trust-bundle');
  });
  it('gives nothing for a reason about no wizard field', () => {
    expect(fieldOfReason('control_plane_count: expected 1 or 3 to 5')).toBe('');
    expect(fieldOfReason('the gateway cannot be reached')).toBe('');
  });
});

describe('reasonOnField', () => {
  it('drops the field path and the NMState prefix, keeps the YAML path', () =>
    expect(reasonOnField('infra_env.static_network_config[0].network_yaml: nmstate: routes.config[0].next-hop-interface: "eth9" is not an interface')).toBe(
      'routes.config[0].next-hop-interface: "eth9" is not an interface',
    ));
  it('drops a plain field name', () => expect(reasonOnField('pull_secret: must not be empty')).toBe('must not be empty'));
  it('keeps a reason without a path', () => expect(reasonOnField('certificate 1 is bad')).toBe('certificate 1 is bad'));
});
