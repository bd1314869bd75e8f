// Checks the wizard's drafts with the API as the user types: each draft goes to the create it
// would become with ?validate_only=true (the gateway's JSON conversion, defaults and the
// inventory's input checks run; nothing is stored), so every problem the wizard shows is the
// API's own reason. Debounced, one request in flight, and an answer about a draft that has
// since changed is dropped.
import { useEffect, useMemo, useState } from 'react';
import { api, reasonOf, type ClusterCreateParams, type InfraEnvCreateParams } from './api/client';

// '' when a create would take the draft, else the API's reason; throws when the API could not
// judge it (unreachable, a server error).
export type Check<D> = (draft: D) => Promise<string>;

// The API's answer about one draft (`key` is its JSON). `failed`: it could not be asked.
export interface Verdict {
  key: string;
  reason: string;
  failed: boolean;
}

export class DraftChecker<D> {
  private latest: { key: string; draft: D } | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight = false;
  private queued = false;
  private stopped = false;

  constructor(
    private readonly check: Check<D>,
    private readonly onVerdict: (verdict: Verdict) => void,
    private readonly delayMs = 300,
  ) {}

  // Checks `draft` once the user has paused for delayMs (a newer draft replaces it).
  submit(key: string, draft: D): void {
    this.latest = { key, draft };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.send(), this.delayMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private send(): void {
    if (this.stopped || !this.latest) return;
    if (this.inFlight) {
      this.queued = true;  // sent when the answer in flight arrives
      return;
    }
    const sent = this.latest;
    this.inFlight = true;
    this.check(sent.draft)
      .then(
        (reason): Verdict => ({ key: sent.key, reason, failed: false }),
        (): Verdict => ({ key: sent.key, reason: '', failed: true }),
      )
      .then((verdict) => {
        this.inFlight = false;
        if (this.stopped) return;
        if (this.latest?.key === sent.key) this.onVerdict(verdict);
        if (this.queued) {
          this.queued = false;
          if (this.latest?.key !== sent.key) this.send();
        }
      });
  }
}

// The API's verdict on `draft` (null: nothing to check), and whether it is about this very
// draft (`settled`) or about an earlier one, still shown while the newer one is checked.
export function useDraftVerdict<D>(check: Check<D>, draft: D | null, delayMs = 300): { verdict: Verdict | null; settled: boolean } {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const checker = useMemo(() => new DraftChecker(check, setVerdict, delayMs), [check, delayMs]);
  useEffect(() => () => checker.stop(), [checker]);
  const key = draft === null ? '' : JSON.stringify(draft);
  useEffect(() => {
    if (draft !== null) checker.submit(key, draft);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the draft
  }, [checker, key]);
  return { verdict, settled: draft === null || verdict?.key === key };
}

// An answer of a validate_only create: '' when accepted, the reason of a 4xx, else throws.
function verdictOf(result: { error?: unknown; response: Response }): string {
  if (result.response.ok) return '';
  if (result.response.status >= 400 && result.response.status < 500 && result.response.status !== 401) return reasonOf(result.error);
  throw new Error(reasonOf(result.error));
}

export const checkClusterDraft: Check<ClusterCreateParams> = async (body) =>
  verdictOf(await api.POST('/api/assisted-install/v2/clusters', { params: { query: { validate_only: true } }, body }));

export const checkInfraEnvDraft: Check<InfraEnvCreateParams> = async (body) =>
  verdictOf(await api.POST('/api/assisted-install/v2/infra-envs', { params: { query: { validate_only: true } }, body }));
