import { describe, expect, it } from 'vitest';
import { staticNetworkConfig } from './hostNetworking';

describe('staticNetworkConfig', () => {
  it('maps each host to the API shape', () =>
    expect(staticNetworkConfig([{ yaml: 'interfaces: []', mac: ' 52:54:00:aa:bb:01 ', nic: 'eth0' }])).toEqual([
      { network_yaml: 'interfaces: []', mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
    ]));
});
