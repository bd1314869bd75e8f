// Screens re-read what changed, pushed by the gateway (api/changes.ts): never on a timer.
import { useEffect, useRef } from 'react';
import { followChanges, type Change } from './api/changes';

// Calls `reload(null)` once the change stream is followed (and after anything may have been
// missed), and `reload(changes)` whenever changes arrive (coalesced: at most one reload in
// flight, one more queued). `onPush(changes)` hears of each batch the moment it arrives, even
// while a reload runs: what the changes themselves say (a new status) shows without waiting.
export function useLiveReload(
  clusterId: string | undefined,
  reload: (changes: Change[] | null) => Promise<void>,
  onPush: (changes: Change[]) => void = () => {},
) {
  const latest = useRef(reload);
  latest.current = reload;
  const latestPush = useRef(onPush);
  latestPush.current = onPush;
  useEffect(() => {
    let running = false;
    let queued: Change[] | null | undefined;
    const run = async (changes: Change[] | null) => {
      if (running) {
        queued = queued === undefined || changes === null || queued === null ? changes : [...queued, ...changes];
        return;
      }
      running = true;
      try {
        await latest.current(changes);
      } catch {
        /* the screen shows its own error */
      }
      running = false;
      if (queued !== undefined) {
        const next = queued;
        queued = undefined;
        void run(next);
      }
    };
    // The first read comes from followChanges' first onResync, once it knows where to follow from.
    return followChanges(
      clusterId,
      (changes) => {
        latestPush.current(changes);
        void run(changes);
      },
      () => void run(null),
    );
  }, [clusterId]);
}
