import { describe, expect, it } from 'vitest';
import { refreshDelayMs, refreshRequest } from './oidc';
import { labProvider } from './oidcTestConfig';
import { refreshOf } from './tokenRefresh';

const config = labProvider;

describe('token refresh', () => {
  it('asks the token endpoint with the refresh token as a public client (no secret)', () => {
    const { url, body } = refreshRequest(config, 'r-1');
    expect(url).toBe('https://sso.example.com/realms/lab/token');
    expect(Object.fromEntries(body)).toEqual({ grant_type: 'refresh_token', refresh_token: 'r-1', client_id: 'assisted-ui' });
  });
  it('refreshes a minute before expiry, or with a quarter of a short life left', () => {
    expect(refreshDelayMs(3600)).toBe(3540_000);
    expect(refreshDelayMs(300)).toBe(240_000);
    expect(refreshDelayMs(8)).toBe(6_000);
    expect(refreshDelayMs(0)).toBe(0);
  });
  it('keeps when to refresh and when the token expires, and nothing without a refresh token or lifetime', () => {
    expect(refreshOf({ accessToken: 'a', refreshToken: 'r', expiresIn: 8 }, 1_000)).toEqual({ token: 'r', at: 7_000, expiresAt: 9_000 });
    expect(refreshOf({ accessToken: 'a', expiresIn: 8 }, 1_000)).toBeUndefined();
    expect(refreshOf({ accessToken: 'a', refreshToken: 'r' }, 1_000)).toBeUndefined();
  });
});
