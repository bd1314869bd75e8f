import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { OidcConfig } from '../api/oidc';
import { SignIn } from './SignIn';

const oidc: OidcConfig = {
  issuer: 'https://sso.example.com/realms/lab',
  client_id: 'assisted-ui',
  authorization_endpoint: 'https://sso.example.com/realms/lab/auth',
  token_endpoint: 'https://sso.example.com/realms/lab/token',
  scopes: 'openid',
  redirect_path: '/oidc/callback',
};

describe('sign-in screen', () => {
  it('asks for a bearer token when the gateway names no identity provider', () => {
    const html = renderToStaticMarkup(<SignIn onSignedIn={() => {}} />);
    expect(html).not.toContain('identity provider');
    expect(html).toContain('Bearer token');
  });
  it('offers the identity provider first, naming it, and a token still', () => {
    const html = renderToStaticMarkup(<SignIn oidc={oidc} onSignedIn={() => {}} />);
    expect(html).toContain('Sign in with your identity provider');
    expect(html).toContain('at https://sso.example.com/realms/lab');
    expect(html).toContain('Or a bearer token');
    expect(html.indexOf('identity provider')).toBeLessThan(html.indexOf('Or a bearer token'));
  });
  it("shows why the last sign-in failed, as the provider said it", () => {
    const html = renderToStaticMarkup(<SignIn oidc={oidc} problem="The identity provider did not sign you in: access_denied." onSignedIn={() => {}} />);
    expect(html).toContain('The identity provider did not sign you in: access_denied.');
  });
});
