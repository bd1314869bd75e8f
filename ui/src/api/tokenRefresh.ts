// Keeps a sign-in through the identity provider alive: before the access token expires (a
// minute before, or with a quarter of its life left: oidc.ts refreshDelayMs) the tab trades its
// refresh token at the provider's token endpoint for new tokens, and the REST API and the
// change stream carry the new access token from their next call on. A provider that cannot be
// reached is asked again every few seconds until the token expires; one that refuses (the
// session ended there, the refresh token was used) is not: the token then expires and the next
// call leads back to sign-in, as with a token pasted by hand.
import { session, type Refresh } from './client';
import { ProviderUnreachable, refreshDelayMs, refreshTokens, type OidcConfig, type Tokens } from './oidc';

const RETRY_MS = 5_000;

// When and with what to refresh `tokens`, got at `now`; undefined when they cannot be refreshed.
export function refreshOf(tokens: Tokens, now: number = Date.now()): Refresh | undefined {
  if (!tokens.refreshToken || !tokens.expiresIn) return undefined;
  return { token: tokens.refreshToken, at: now + refreshDelayMs(tokens.expiresIn), expiresAt: now + tokens.expiresIn * 1000 };
}

// Refreshes the tab's sign-in whenever it is due, until the returned function is called.
export function keepSignedIn(config: OidcConfig): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const at = (when: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(() => void run(), Math.max(0, when - Date.now()));
  };
  const run = async () => {
    const due = session.refresh();
    if (stopped || !due) return;
    try {
      const tokens = await refreshTokens(config, due.token);
      // Signed out, or signed in anew, while the provider answered: that sign-in stands.
      if (stopped || session.refresh()?.token !== due.token) return;
      session.signIn(tokens.accessToken, tokens.idToken ?? session.idToken() ?? undefined, refreshOf(tokens));
      const next = session.refresh();
      if (next) at(next.at);
    } catch (e) {
      if (e instanceof ProviderUnreachable && Date.now() + RETRY_MS < due.expiresAt) at(Date.now() + RETRY_MS);
    }
  };
  const due = session.refresh();
  if (due) at(due.at);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
