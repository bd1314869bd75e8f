// The wizard's static networking per host (NMState YAML, the MAC that picks the host and the
// interface name the YAML uses for it) and the shape the API takes it in. The API checks it
// (the same checks the image service applies when it builds the discovery image); its reasons
// are placed on these fields by fieldOfReason (apiReasons.ts).

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

// The static_network_config the API takes, from the wizard's hosts.
export function staticNetworkConfig(hosts: HostNetwork[]) {
  return hosts.map((h) => ({ network_yaml: h.yaml, mac_interface_map: [{ mac_address: h.mac.trim(), logical_nic_name: h.nic.trim() }] }));
}
