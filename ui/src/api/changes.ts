// Live updates: follows GET /api/assisted-install/v2/changes (text/event-stream, see the
// gateway's change_stream.h). Each answer is held by the gateway until something changes for
// this caller, then ends; we ask again at once from the last id. fetch (not EventSource) so the
// bearer token travels in the Authorization header, never in a URL.
import { connection, session } from './client';

export interface Change {
  kind: 'cluster' | 'host' | 'infra-env' | 'event';
  id: string;
  cluster_id: string;
  infra_env_id: string;
  change: 'created' | 'updated' | 'deleted';
  status?: string; // clusters and hosts: the status after the change
  resource_version?: number; // the resource's after the change (none for events and deletions)
}

interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

// Parses a text/event-stream body (the subset the gateway writes: id, event, data, retry).
export function parseEventStream(text: string): { events: SseEvent[]; retry?: number } {
  const events: SseEvent[] = [];
  let retry: number | undefined;
  for (const block of text.split(/\n\n/)) {
    const event: SseEvent = { event: 'message', data: '' };
    let any = false;
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (field === 'retry') retry = Number(value);
      else if (field === 'id') (event.id = value), (any = true);
      else if (field === 'event') (event.event = value), (any = true);
      else if (field === 'data') (event.data += value), (any = true);
    }
    if (any) events.push(event);
  }
  return { events, retry };
}

// Follows changes (of one cluster, or of the caller's clusters) until the returned function is
// called. `onResync` first, once the position to follow from is known (read everything then),
// and again whenever anything may have been missed; `onChanges` gets each batch.
export function followChanges(
  clusterId: string | undefined,
  onChanges: (changes: Change[]) => void,
  onResync: () => void,
): () => void {
  let stopped = false;
  let controller = new AbortController();
  let position = '';
  const url = `/api/assisted-install/v2/changes${clusterId ? `?cluster_id=${clusterId}` : ''}`;

  const loop = async () => {
    let failures = 0;
    while (!stopped) {
      controller = new AbortController();
      let delay = 0;
      try {
        // Without a token (the agent-based read-only view) the gateway decides what may be seen.
        const token = session.token();
        const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
        if (position) headers['Last-Event-ID'] = position;
        const response = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' });
        if (response.status === 401) {
          session.signOut();
          return;
        }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const { events, retry } = parseEventStream(await response.text());
        connection.set(false);
        failures = 0;
        const changes: Change[] = [];
        // The first answer only gives the position to follow from: reading what the screen
        // shows starts after it, so no change falls between the read and the position.
        let resync = position === '';
        for (const event of events) {
          if (event.id) position = event.id;
          if (event.event === 'change') changes.push(JSON.parse(event.data) as Change);
          if (event.event === 'resync') resync = true;
        }
        if (resync) onResync();
        else if (changes.length > 0) onChanges(changes);
        delay = retry ?? 0;
      } catch (e) {
        if (stopped) return;
        // The gateway is unreachable: say so, and try again with a growing pause; then re-read
        // everything, since changes went by unseen.
        connection.set(true);
        failures += 1;
        delay = Math.min(500 * 2 ** failures, 10_000);
        position = '';
        onResync();
      }
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
  void loop();
  return () => {
    stopped = true;
    controller.abort();
  };
}
