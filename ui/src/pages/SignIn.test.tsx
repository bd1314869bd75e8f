import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { labProvider } from '../api/oidcTestConfig';
import { SignIn } from './SignIn';

const oidc = labProvider;

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
