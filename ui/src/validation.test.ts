import { describe, expect, it } from 'vitest';
import { cidrProblem, clusterNameProblem, parseCidr, parseIp, pullSecretProblem, sshKeyProblem, vipProblem } from './validation';

describe('addresses', () => {
  it('parses IPv4 and IPv6 and refuses look-alikes', () => {
    expect(parseIp('192.168.122.5')?.family).toBe(4);
    expect(parseIp('fd00::5')?.family).toBe(6);
    expect(parseIp('2001:db8:0:0:0:0:0:1')?.family).toBe(6);
    for (const bad of ['256.1.1.1', '1.2.3', '01.2.3.4', 'fd00:::1', '1::2::3', 'host.example.com', '']) {
      expect(parseIp(bad), bad).toBeNull();
    }
  });
  it('checks CIDRs, host bits included', () => {
    expect(parseCidr('10.0.0.0/8')?.prefix).toBe(8);
    expect(cidrProblem('192.168.122.0/24')).toBe('');
    expect(cidrProblem('fd00::/64')).toBe('');
    expect(cidrProblem('192.168.122.1/24')).toMatch(/Host bits/);
    expect(cidrProblem('192.168.122.0/33')).toMatch(/address block/);
    expect(cidrProblem('')).toBe('Required.');
  });
});

describe('VIPs', () => {
  const network = '192.168.122.0/24';
  it('accepts a free address inside the machine network', () => {
    expect(vipProblem('192.168.122.5', network, '192.168.122.6', 'Ingress VIP')).toBe('');
  });
  it('names what is wrong', () => {
    expect(vipProblem('10.0.0.5', network, '', 'Ingress VIP')).toMatch(/Not inside the machine network 192.168.122.0\/24/);
    expect(vipProblem('192.168.122.6', network, '192.168.122.6', 'Ingress VIP')).toBe('Must differ from the Ingress VIP.');
    expect(vipProblem('192.168.122.0', network, '', 'Ingress VIP')).toMatch(/network or broadcast/);
    expect(vipProblem('192.168.122.255', network, '', 'Ingress VIP')).toMatch(/network or broadcast/);
    expect(vipProblem('fd00::5', network, '', 'Ingress VIP')).toMatch(/Not inside/);
    expect(vipProblem('nope', network, '', 'Ingress VIP')).toBe('Not an IP address.');
    expect(vipProblem('', network, '', 'Ingress VIP')).toBe('Required.');
  });
});

describe('details', () => {
  it('checks names, pull secrets and SSH keys', () => {
    expect(clusterNameProblem('demo-1')).toBe('');
    expect(clusterNameProblem('Demo')).toMatch(/Lower-case/);
    expect(clusterNameProblem('-x')).toMatch(/Lower-case/);
    expect(pullSecretProblem('{"auths":{}}')).toBe('');
    expect(pullSecretProblem('{"auth":{}}')).toMatch(/auths/);
    expect(pullSecretProblem('{')).toBe('Not valid JSON.');
    expect(sshKeyProblem('ssh-ed25519 AAAAC3Nza demo')).toBe('');
    expect(sshKeyProblem('')).toBe('');
    expect(sshKeyProblem('-----BEGIN OPENSSH PRIVATE KEY-----')).toMatch(/public key/);
  });
});
