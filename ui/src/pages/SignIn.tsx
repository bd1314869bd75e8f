import {
  ActionGroup,
  Alert,
  Button,
  Card,
  CardBody,
  CardTitle,
  Divider,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  PageSection,
  TextArea,
} from '@patternfly/react-core';
import { useState } from 'react';
import { session, tokenProblem } from '../api/client';
import { beginSignIn, type OidcConfig } from '../api/oidc';

// Sign-in: through the identity provider when the gateway names one (`oidc`), and always with a
// bearer token pasted here (the local issuer's, `aictl token issue`, or a provider's). A token
// is checked against the API before it is kept. `problem`: why the last sign-in failed.
export function SignIn({ oidc, problem = '', onSignedIn }: { oidc?: OidcConfig; problem?: string; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(problem);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    const candidate = token.trim();
    const refused = await tokenProblem(candidate);
    if (refused) setError(refused);
    else {
      session.signIn(candidate);
      onSignedIn();
    }
    setBusy(false);
  };
  const redirect = async () => {
    setBusy(true);
    setError('');
    try {
      // Back to the screen asked for (a bookmark), not the sign-in route itself.
      await beginSignIn(oidc!, window.location.pathname === oidc!.redirect_path ? '/' : window.location.pathname);
    } catch (e) {
      setError(`The sign-in could not start: ${(e as Error).message}`);
      setBusy(false);
    }
  };

  return (
    <PageSection>
      <Card className="ai-wide-input">
        <CardTitle>Sign in</CardTitle>
        <CardBody>
          {error && <Alert variant="danger" isInline title={error} data-testid="sign-in-error" />}
          {oidc && (
            <>
              <Button variant="primary" onClick={() => void redirect()} isDisabled={busy} data-testid="oidc-sign-in">
                Sign in with your identity provider
              </Button>
              <HelperText>
                <HelperTextItem>at {oidc.issuer}</HelperTextItem>
              </HelperText>
              <Divider className="ai-divider" />
            </>
          )}
          {/* noValidate: the browser's own "Please fill out this field." never speaks for us. */}
          <Form noValidate onSubmit={submit}>
            <FormGroup label={oidc ? 'Or a bearer token' : 'Bearer token'} isRequired={!oidc} fieldId="token">
              <TextArea
                id="token"
                name="token"
                value={token}
                onChange={(_e, value) => setToken(value)}
                rows={4}
                aria-required={!oidc}
                aria-label="Bearer token"
              />
              <FormHelperText>
                <HelperText>
                  <HelperTextItem>
                    In the demo: <code>aictl token issue --secret-file=.demo/keys/jwt.key --user=demo --org=demo</code>
                  </HelperTextItem>
                </HelperText>
              </FormHelperText>
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant={oidc ? 'secondary' : 'primary'} isDisabled={!token.trim() || busy} isLoading={busy && !!token.trim()}>
                Sign in
              </Button>
            </ActionGroup>
          </Form>
        </CardBody>
      </Card>
    </PageSection>
  );
}
