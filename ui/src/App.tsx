import {
  Alert,
  Button,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadMain,
  Page,
  PageSection,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { useEffect, useState } from 'react';
import { api, connection, session, type WebUiConfig } from './api/client';
import { endSessionUrl } from './api/oidc';
import { keepSignedIn } from './api/tokenRefresh';
import { ClusterDetail } from './pages/ClusterDetail';
import { ClustersList } from './pages/ClustersList';
import { CreateCluster } from './pages/CreateCluster';
import { OidcCallback } from './pages/OidcCallback';
import { SignIn } from './pages/SignIn';
import { navigate, usePath } from './router';

function useSignedIn(): boolean {
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  useEffect(() => {
    const out = () => setSignedIn(false);
    window.addEventListener('assisted:signed-out', out);
    return () => window.removeEventListener('assisted:signed-out', out);
  }, []);
  useEffect(() => {
    if (!signedIn && session.token() !== null) setSignedIn(true);
  });
  return signedIn || session.token() !== null;
}

function useBackendDown(): boolean {
  const [down, setDown] = useState(connection.down);
  useEffect(() => {
    const update = () => setDown(connection.down);
    window.addEventListener('assisted:connection', update);
    return () => window.removeEventListener('assisted:connection', update);
  }, []);
  return down;
}

// What the gateway serves this UI for (GET web-ui/config, public): null until it answers.
function useWebUiConfig(): WebUiConfig | null {
  const [config, setConfig] = useState<WebUiConfig | null>(null);
  useEffect(() => {
    let stopped = false;
    const load = async () => {
      for (let attempt = 0; !stopped; attempt++) {
        try {
          const { data } = await api.GET('/api/assisted-install/v2/web-ui/config');
          if (data) return setConfig(data);
        } catch {
          /* the banner says the gateway is down; ask again */
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 10_000)));
      }
    };
    void load();
    return () => {
      stopped = true;
    };
  }, []);
  return config;
}

const UUID = /^\/clusters\/([0-9a-f-]{36})$/;

export function App() {
  const [, rerender] = useState(0);
  const signedIn = useSignedIn();
  const down = useBackendDown();
  const path = usePath();
  const config = useWebUiConfig();
  const signedInNow = () => rerender((n) => n + 1);
  // A sign-in through the identity provider gets a new token before its token expires.
  const oidc = config?.oidc;
  useEffect(() => (oidc && signedIn ? keepSignedIn(oidc) : undefined), [oidc, signedIn]);
  // Signed in through the identity provider: its session ends too, where it offers that.
  const signOut = () => {
    const idToken = session.idToken();
    session.signOut();
    const end = config?.oidc && idToken ? endSessionUrl(config.oidc, idToken, window.location.origin) : null;
    if (end) window.location.assign(end);
  };

  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadBrand>
          <Title headingLevel="h1" size="lg">
            <a href="/" onClick={(e) => (e.preventDefault(), navigate('/'))}>
              Assisted Installer
            </a>
          </Title>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar>
          <ToolbarContent>
            {signedIn && (
              <ToolbarItem align={{ default: 'alignEnd' }}>
                <Button variant="secondary" onClick={signOut}>
                  Sign out
                </Button>
              </ToolbarItem>
            )}
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
    </Masthead>
  );

  let content;
  if (config === null) {
    content = <PageSection>Loading…</PageSection>;
  } else if (!signedIn && config.mode === 'agent-based' && config.cluster_id) {
    content = <ClusterDetail clusterId={config.cluster_id} readOnly />;
  } else if (!signedIn && config.oidc && path === config.oidc.redirect_path) {
    content = <OidcCallback oidc={config.oidc} onSignedIn={signedInNow} />;
  } else if (!signedIn) {
    content = <SignIn oidc={config.oidc} onSignedIn={signedInNow} />;
  } else if (path === '/clusters/new') {
    content = <CreateCluster />;
  } else if (UUID.test(path)) {
    content = <ClusterDetail clusterId={UUID.exec(path)![1]} />;
  } else {
    content = <ClustersList />;
  }
  return (
    <Page masthead={masthead}>
      {down && (
        <PageSection>
          <Alert variant="danger" isInline title="The installer service cannot be reached" data-testid="backend-down">
            What you see may be out of date. The page reconnects by itself as soon as the service answers again.
          </Alert>
        </PageSection>
      )}
      {content}
    </Page>
  );
}
