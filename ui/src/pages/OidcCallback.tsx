import { PageSection } from '@patternfly/react-core';
import { useEffect, useRef, useState } from 'react';
import { session, tokenProblem } from '../api/client';
import { completeSignIn, SignInError, type OidcConfig } from '../api/oidc';
import { refreshOf } from '../api/tokenRefresh';
import { SignIn } from './SignIn';

// The UI's callback route, where the identity provider sends the browser back: completes the
// sign-in and opens the screen it was started from; when it fails, the sign-in screen says why.
export function OidcCallback({ oidc, onSignedIn }: { oidc: OidcConfig; onSignedIn: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const search = window.location.search;
    // The code and state leave the address bar and the history at once, whatever comes of them.
    window.history.replaceState(null, '', oidc.redirect_path);
    void (async () => {
      try {
        const signedIn = await completeSignIn(oidc, search);
        const refused = await tokenProblem(signedIn.accessToken);
        if (refused) throw new SignInError(`The installer service does not accept the identity provider's token: ${refused}`);
        session.signIn(signedIn.accessToken, signedIn.idToken, refreshOf(signedIn));
        window.history.replaceState(null, '', signedIn.returnTo);
        window.dispatchEvent(new Event('assisted:navigate'));
        onSignedIn();
      } catch (e) {
        setProblem(e instanceof SignInError ? e.message : `The sign-in did not complete: ${(e as Error).message}`);
      }
    })();
  }, []);
  if (problem !== null) return <SignIn oidc={oidc} problem={problem} onSignedIn={onSignedIn} />;
  return <PageSection data-testid="signing-in">Signing in…</PageSection>;
}
