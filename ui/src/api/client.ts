// The typed REST client: paths, bodies and answers come from the gateway's own OpenAPI document
// (services/gateway/openapi.yaml, turned into schema.d.ts by `npm run gen` at every build), so
// a field the API renames breaks the build, not the screen.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Cluster = components['schemas']['cluster'] & Record<string, unknown>;
export type Host = components['schemas']['host'] & Record<string, unknown>;
export type InfraEnv = components['schemas']['infra-env'] & Record<string, unknown>;
export type ClusterCreateParams = components['schemas']['cluster-create-params'];
export type InfraEnvCreateParams = components['schemas']['infra-env-create-params'];
export type ApiEvent = components['schemas']['event'];
export type ApiError = components['schemas']['error'];
export type WebUiConfig = components['schemas']['web-ui-config'];
// The status words of the API's enums: the UI's sets and colours of them are typed by these, so
// a status the API renames or drops breaks the build.
export type ClusterStatus = components['schemas']['cluster']['status'];
export type HostStatus = components['schemas']['host']['status'];

const TOKEN_KEY = 'assisted.token';
const ID_TOKEN_KEY = 'assisted.id_token';
const REFRESH_KEY = 'assisted.refresh';

// How a sign-in through the identity provider stays alive (api/tokenRefresh.ts): its refresh
// token, when to use it, and when the access token expires (epoch ms).
export interface Refresh {
  token: string;
  at: number;
  expiresAt: number;
}

// The bearer token lives for the tab only (sessionStorage): closing it signs out. A sign-in
// through the identity provider also keeps its ID token, to end the provider's session too,
// and its refresh token, to get a new access token before this one expires.
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  idToken: (): string | null => sessionStorage.getItem(ID_TOKEN_KEY),
  refresh: (): Refresh | null => {
    try {
      return JSON.parse(sessionStorage.getItem(REFRESH_KEY) ?? 'null') as Refresh | null;
    } catch {
      return null;
    }
  },
  signIn: (token: string, idToken?: string, refresh?: Refresh) => {
    sessionStorage.setItem(TOKEN_KEY, token);
    if (idToken) sessionStorage.setItem(ID_TOKEN_KEY, idToken);
    else sessionStorage.removeItem(ID_TOKEN_KEY);
    if (refresh) sessionStorage.setItem(REFRESH_KEY, JSON.stringify(refresh));
    else sessionStorage.removeItem(REFRESH_KEY);
  },
  signOut: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(ID_TOKEN_KEY);
    sessionStorage.removeItem(REFRESH_KEY);
    window.dispatchEvent(new Event('assisted:signed-out'));
  },
};

// Backend reachability, for the banner: set by every call's outcome.
export const connection = {
  down: false,
  set(down: boolean) {
    if (down === this.down) return;
    this.down = down;
    window.dispatchEvent(new Event('assisted:connection'));
  },
};

// Why the API refuses `token` as a bearer token, or '' when it takes it (one cheap read).
export async function tokenProblem(token: string): Promise<string> {
  try {
    const { response } = await api.GET('/api/assisted-install/v2/clusters', {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (response.status === 401) return 'This token is not valid (expired, or from another issuer).';
    if (!response.ok) return `The service answered ${response.status}; try again.`;
    return '';
  } catch {
    return 'The installer service cannot be reached.';
  }
}

// A call that never reached the gateway: the banner (connection.down) says so, screens need not.
export class Unreachable extends Error {}

const auth: Middleware = {
  onRequest({ request }) {
    const token = session.token();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response }) {
    // An expired or revoked token: back to sign-in.
    if (response.status === 401) session.signOut();
    connection.set(response.status === 502 || response.status === 503 || response.status === 504);
    return response;
  },
  onError() {
    connection.set(true);
    return new Unreachable('the gateway cannot be reached');
  },
};

export const api = createClient<paths>({ baseUrl: '/' });
api.use(auth);

// The reason of an Error document, or a sentence for whatever else went wrong.
export function reasonOf(error: unknown): string {
  if (error && typeof error === 'object' && 'reason' in error) return String((error as ApiError).reason);
  if (error instanceof Error) return error.message;
  return 'the request failed';
}

// Wraps a call: its data, or throws with the API's reason. Network failures mark the backend down.
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result;
  try {
    result = await call;
  } catch (e) {
    connection.set(true);
    throw e instanceof Unreachable ? e : new Unreachable('the gateway cannot be reached');
  }
  if (result.error !== undefined || !result.response.ok) throw new Error(reasonOf(result.error));
  return result.data as T;
}

// GET of a file route with the bearer token: the response, or throws with the API's reason.
async function authorizedGet(url: string): Promise<Response> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${session.token() ?? ''}` } });
  if (response.status === 401) session.signOut();
  if (!response.ok) {
    let reason = `HTTP ${response.status}`;
    try {
      reason = reasonOf(await response.json());
    } catch {
      /* not JSON */
    }
    throw new Error(reason);
  }
  return response;
}

// The text of an authenticated file (the kubeadmin password).
export async function fetchText(url: string): Promise<string> {
  return (await authorizedGet(url)).text();
}

// Downloads an authenticated file (credentials, iPXE script) through a blob URL.
export async function download(url: string, filename: string): Promise<void> {
  const blob = await (await authorizedGet(url)).blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

// The parsed validations_info text (its format is described by the OpenAPI document): category
// -> results. `hint` comes with failures and errors: what the user can do about them.
export interface ValidationResult {
  id: string;
  status: string;
  message: string;
  hint?: string;
}
export function validationsOf(text: unknown): Record<string, ValidationResult[]> {
  if (typeof text !== 'string' || text === '') return {};
  try {
    return JSON.parse(text) as Record<string, ValidationResult[]>;
  } catch {
    return {};
  }
}
export function failingValidations(text: unknown): ValidationResult[] {
  return Object.values(validationsOf(text))
    .flat()
    .filter((v) => v.status === 'failure' || v.status === 'error');
}
