// The identity provider the UI's unit tests sign in with (a made-up realm; nothing is reached).
import type { OidcConfig } from './oidc';

export const labProvider: OidcConfig = {
  issuer: 'https://sso.example.com/realms/lab',
  client_id: 'assisted-ui',
  authorization_endpoint: 'https://sso.example.com/realms/lab/auth',
  token_endpoint: 'https://sso.example.com/realms/lab/token',
  scopes: 'openid',
  redirect_path: '/oidc/callback',
};
