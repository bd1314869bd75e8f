// Sign-in through the identity provider the gateway names (GET web-ui/config, "oidc"; the
// gateway's --oidc-discovery-file and --oidc-client-id): the authorization code flow with PKCE
// (RFC 7636, S256) of a public client, since a browser can keep no client secret.
//
// beginSignIn sends the browser to the provider with a fresh state and the challenge of a fresh
// verifier, both kept in this tab's sessionStorage; the provider sends it back to the UI's
// callback route, where completeSignIn checks the state, posts the code with the verifier to
// the provider's token endpoint (the one other origin the UI's Content-Security-Policy lets it
// reach) and returns the access token, which the REST API then takes as a bearer token. The
// pure steps (URLs, the callback's checks, the token request) are exported for unit tests.
import type { components } from './schema';

export type OidcConfig = components['schemas']['web-ui-oidc'];

// What a sign-in started in this tab remembers until the provider sends the browser back.
export interface PendingSignIn {
  state: string;
  verifier: string;
  returnTo: string; // the UI route to open once signed in
}

export interface Tokens {
  accessToken: string;
  idToken?: string;
  refreshToken?: string; // absent when the provider gives none: the token is not refreshed
  expiresIn?: number; // seconds the access token lives, as the provider says
}

export interface SignedIn extends Tokens {
  returnTo: string;
}

// A sign-in that did not complete; its message is for the user.
export class SignInError extends Error {}
// The identity provider did not answer at all (a refresh may be tried again).
export class ProviderUnreachable extends SignInError {}

const PENDING_KEY = 'assisted.oidc.pending';

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

// The S256 code challenge of `verifier`: BASE64URL(SHA-256(verifier)).
export async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

// Only a route of this UI: a path on its own origin, never "//other.example.com".
function safeReturn(path: string): string {
  return path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

export function newPendingSignIn(returnTo: string): PendingSignIn {
  // 32 random bytes: a 43-character verifier, the shortest RFC 7636 allows, of full strength.
  return { state: randomString(), verifier: randomString(), returnTo: safeReturn(returnTo) };
}

export function redirectUri(config: OidcConfig, origin: string): string {
  return new URL(config.redirect_path, origin).toString();
}

// Where the browser goes to sign in.
export async function authorizationUrl(config: OidcConfig, pending: PendingSignIn, origin: string): Promise<string> {
  const url = new URL(config.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set('redirect_uri', redirectUri(config, origin));
  url.searchParams.set('scope', config.scopes);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('code_challenge', await challengeOf(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

// The code in the provider's answer (the callback's query), once it is known to answer the
// sign-in this tab started; else SignInError saying why.
export function codeOfCallback(search: string, pending: PendingSignIn | null): string {
  const params = new URLSearchParams(search);
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    throw new SignInError(`The identity provider did not sign you in: ${error}${description ? ` (${description})` : ''}.`);
  }
  if (!pending || params.get('state') !== pending.state) {
    throw new SignInError('This sign-in answer does not belong to a sign-in started in this tab (or was used already). Sign in again.');
  }
  const code = params.get('code');
  if (!code) throw new SignInError('The identity provider sent no code. Sign in again.');
  return code;
}

// The token request for `code` (RFC 6749 4.1.3 with the PKCE verifier): a form post, which a
// browser sends cross-origin without a preflight.
export function tokenRequest(config: OidcConfig, code: string, pending: PendingSignIn, origin: string): { url: string; body: URLSearchParams } {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri(config, origin),
    client_id: config.client_id,
    code_verifier: pending.verifier,
  });
  return { url: config.token_endpoint, body };
}

// Where sign-out sends the browser to end the provider's session too (RP-initiated logout), or
// null when the provider has no such endpoint (sign-out is then this tab's only).
export function endSessionUrl(config: OidcConfig, idToken: string | null, origin: string): string | null {
  if (!config.end_session_endpoint) return null;
  const url = new URL(config.end_session_endpoint);
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set('post_logout_redirect_uri', new URL('/', origin).toString());
  if (idToken) url.searchParams.set('id_token_hint', idToken);
  return url.toString();
}

// Starts a sign-in: remembers it for this tab and leaves for the provider.
export async function beginSignIn(config: OidcConfig, returnTo: string): Promise<void> {
  const pending = newPendingSignIn(returnTo);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(await authorizationUrl(config, pending, window.location.origin));
}

function takePending(): PendingSignIn | null {
  const text = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY); // one answer per sign-in, whatever it says
  if (!text) return null;
  try {
    return JSON.parse(text) as PendingSignIn;
  } catch {
    return null;
  }
}

// The request that trades `refreshToken` for new tokens before the access token expires
// (RFC 6749 6; a public client names itself and sends no secret).
export function refreshRequest(config: OidcConfig, refreshToken: string): { url: string; body: URLSearchParams } {
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: config.client_id });
  return { url: config.token_endpoint, body };
}

// How long after getting an access token that lives `expiresIn` seconds to refresh it: a
// minute before it expires, or with a quarter of its life left when it lives less than four.
export function refreshDelayMs(expiresIn: number): number {
  return Math.max(0, expiresIn - Math.min(60, expiresIn / 4)) * 1000;
}

// Posts a token request (`what` says which, for the error) and reads the tokens; SignInError
// saying why when the provider cannot be reached or gives none.
async function requestTokens(request: { url: string; body: URLSearchParams }, what: string): Promise<Tokens> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', body: request.body, credentials: 'omit' });
  } catch {
    throw new ProviderUnreachable(`The identity provider cannot be reached to ${what}.`);
  }
  let answer: Record<string, unknown> = {};
  try {
    answer = (await response.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: said below */
  }
  const accessToken = answer.access_token;
  if (!response.ok || typeof accessToken !== 'string' || !accessToken) {
    const error = typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`;
    const description = typeof answer.error_description === 'string' ? ` (${answer.error_description})` : '';
    throw new SignInError(`The identity provider did not give a token: ${error}${description}.`);
  }
  return {
    accessToken,
    idToken: typeof answer.id_token === 'string' ? answer.id_token : undefined,
    refreshToken: typeof answer.refresh_token === 'string' && answer.refresh_token ? answer.refresh_token : undefined,
    expiresIn: typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : undefined,
  };
}

// Completes the sign-in the provider answered with `search` (the callback URL's query).
export async function completeSignIn(config: OidcConfig, search: string): Promise<SignedIn> {
  const pending = takePending();
  const code = codeOfCallback(search, pending);
  try {
    const tokens = await requestTokens(tokenRequest(config, code, pending!, window.location.origin), 'complete the sign-in');
    return { ...tokens, returnTo: safeReturn(pending!.returnTo) };
  } catch (e) {
    throw new SignInError(`${(e as Error).message} Sign in again.`);
  }
}

// New tokens for `refreshToken`; SignInError when the provider gives none.
export function refreshTokens(config: OidcConfig, refreshToken: string): Promise<Tokens> {
  return requestTokens(refreshRequest(config, refreshToken), 'refresh the sign-in');
}
