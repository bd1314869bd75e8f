// A change on the change stream (api/changes.ts) names a cluster's or host's new status and
// resource_version: the screen shows that status at once, before it re-reads the rest of the
// resource through the REST API, so a status change costs no round trip. resource_version
// orders what the screen holds: a change arrives twice (early as a hint, again numbered) and a
// numbered one may come after a newer hint, and a re-read started before a change may answer
// after it; neither may take a row back to an older status. Until the re-read comes, the row's
// other fields (its validations above all) are older than its status: `status_ahead` says so,
// and the screen must not show them as the reason for that status.
import type { Change } from './api/changes';

export interface Versioned {
  id: string;
  status?: unknown;
  resource_version?: number;
  // Set on a row whose status was pushed after the rest of it was read.
  status_ahead?: boolean;
}

// `row` with the status `change` pushed, when the change is about it and newer than it.
export function withPushedStatus<T extends Versioned>(row: T, change: Change): T {
  if (change.id !== row.id || change.status === undefined || change.resource_version === undefined) return row;
  if ((row.resource_version ?? 0) >= change.resource_version) return row;
  return { ...row, status: change.status, resource_version: change.resource_version, status_ahead: true };
}

// Each of `rows` with the newest status `changes` (in any order) push for it.
export function withPushedStatuses<T extends Versioned>(rows: T[], changes: Change[]): T[] {
  return rows.map((row) => changes.reduce(withPushedStatus, row));
}

// What to show of a resource held as `held` and read again as `read`: the read, unless what is
// held is newer (a pushed status the read, started earlier, had not seen yet). A read is whole:
// its status and validations agree.
export function newerOf<T extends Versioned>(held: T | undefined | null, read: T): T {
  return held && (held.resource_version ?? 0) > (read.resource_version ?? 0) ? held : read;
}

// Whether `row`'s status was pushed after the rest of it (validations, status_info) was read.
export function statusAhead(row: Versioned): boolean {
  return row.status_ahead === true;
}
