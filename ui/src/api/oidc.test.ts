import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationUrl, challengeOf, codeOfCallback, endSessionUrl, newPendingSignIn, SignInError, tokenRequest, type OidcConfig } from './oidc';

const config: OidcConfig = {
  issuer: 'https://sso.example.com/realms/lab',
  client_id: 'assisted-ui',
  authorization_endpoint: 'https://sso.example.com/realms/lab/auth?kc_idp_hint=corp',
  token_endpoint: 'https://sso.example.com/realms/lab/token',
  end_session_endpoint: 'https://sso.example.com/realms/lab/logout',
  scopes: 'openid profile',
  redirect_path: '/oidc/callback',
};
const origin = 'https://installer.example.com';

describe('PKCE sign-in', () => {
  it('makes a fresh 43-character verifier and state each time, and keeps only routes of this UI to return to', () => {
    const a = newPendingSignIn('/clusters/1');
    const b = newPendingSignIn('//evil.example.com/x');
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.verifier).not.toBe(b.verifier);
    expect(a.state).not.toBe(b.state);
    expect(a.returnTo).toBe('/clusters/1');
    expect(b.returnTo).toBe('/');
  });

  it('challenges with S256: BASE64URL(SHA-256(verifier)), as another implementation computes it', async () => {
    const { verifier } = newPendingSignIn('/');
    expect(await challengeOf(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
  });

  it("sends the browser to the provider with the code flow, the client, this UI's callback, the state and the challenge", async () => {
    const pending = newPendingSignIn('/');
    const url = new URL(await authorizationUrl(config, pending, origin));
    expect(`${url.origin}${url.pathname}`).toBe('https://sso.example.com/realms/lab/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      kc_idp_hint: 'corp', // what the provider's endpoint carried stays
      response_type: 'code',
      client_id: 'assisted-ui',
      redirect_uri: 'https://installer.example.com/oidc/callback',
      scope: 'openid profile',
      state: pending.state,
      code_challenge: await challengeOf(pending.verifier),
      code_challenge_method: 'S256',
    });
  });

  it("takes the code only from an answer to this tab's sign-in", () => {
    const pending = newPendingSignIn('/');
    expect(codeOfCallback(`?code=abc&state=${pending.state}`, pending)).toBe('abc');
    expect(() => codeOfCallback('?code=abc&state=forged', pending)).toThrow(SignInError);
    expect(() => codeOfCallback(`?code=abc&state=${pending.state}`, null)).toThrow(/not belong to a sign-in started in this tab/);
    expect(() => codeOfCallback(`?state=${pending.state}`, pending)).toThrow(/no code/);
    expect(() => codeOfCallback(`?error=access_denied&error_description=the+user+declined&state=${pending.state}`, pending)).toThrow(
      'The identity provider did not sign you in: access_denied (the user declined).',
    );
  });

  it('exchanges the code with its verifier as a form post to the token endpoint', () => {
    const pending = newPendingSignIn('/');
    const { url, body } = tokenRequest(config, 'abc', pending, origin);
    expect(url).toBe(config.token_endpoint);
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'authorization_code',
      code: 'abc',
      redirect_uri: 'https://installer.example.com/oidc/callback',
      client_id: 'assisted-ui',
      code_verifier: pending.verifier,
    });
  });

  it("ends the provider's session on sign-out where it has an end-session endpoint, coming back here", () => {
    const url = new URL(endSessionUrl(config, 'id.token.here', origin)!);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'assisted-ui',
      post_logout_redirect_uri: 'https://installer.example.com/',
      id_token_hint: 'id.token.here',
    });
    expect(endSessionUrl({ ...config, end_session_endpoint: undefined }, 'id.token.here', origin)).toBeNull();
  });
});
