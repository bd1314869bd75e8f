import { ActionGroup, Alert, Button, Card, CardBody, CardTitle, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, PageSection, TextArea } from '@patternfly/react-core';
import { useState } from 'react';
import { api, session } from '../api/client';

// Sign-in with a bearer token: the local issuer's (`aictl token issue`) or an identity
// provider's. The token is checked against the API before it is kept.
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    const candidate = token.trim();
    try {
      const { response } = await api.GET('/api/assisted-install/v2/clusters', {
        headers: { Authorization: `Bearer ${candidate}` },
      });
      if (response.status === 401) setError('This token is not valid (expired, or from another issuer).');
      else if (!response.ok) setError(`The service answered ${response.status}; try again.`);
      else {
        session.signIn(candidate);
        onSignedIn();
      }
    } catch {
      setError('The installer service cannot be reached.');
    }
    setBusy(false);
  };

  return (
    <PageSection>
      <Card className="ai-wide-input">
        <CardTitle>Sign in</CardTitle>
        <CardBody>
          <Form onSubmit={submit}>
            {error && <Alert variant="danger" isInline title={error} data-testid="sign-in-error" />}
            <FormGroup label="Bearer token" isRequired fieldId="token">
              <TextArea
                id="token"
                name="token"
                value={token}
                onChange={(_e, value) => setToken(value)}
                rows={4}
                isRequired
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
              <Button type="submit" variant="primary" isDisabled={!token.trim() || busy} isLoading={busy}>
                Sign in
              </Button>
            </ActionGroup>
          </Form>
        </CardBody>
      </Card>
    </PageSection>
  );
}
