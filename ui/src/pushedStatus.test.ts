import { describe, expect, it } from 'vitest';
import type { Change } from './api/changes';
import { newerOf, statusAhead, withPushedStatus, withPushedStatuses } from './pushedStatus';

const host = (id: string, status: string, resource_version: number) => ({ id, status, resource_version, role: 'worker' });
const change = (id: string, status: string, resource_version: number): Change => ({
  kind: 'host',
  id,
  cluster_id: 'c',
  infra_env_id: 'i',
  change: 'updated',
  status,
  resource_version,
});

describe('withPushedStatus', () => {
  it('shows a newer status at once and keeps the rest of the row', () => {
    expect(withPushedStatus(host('h1', 'known', 4), change('h1', 'insufficient', 5))).toEqual({ ...host('h1', 'insufficient', 5), status_ahead: true });
  });
  it('never takes a row back: a numbered change after a newer hint, or the same change twice', () => {
    const row = host('h1', 'known', 6);
    expect(withPushedStatus(row, change('h1', 'insufficient', 5))).toBe(row);
    expect(withPushedStatus(row, change('h1', 'known', 6))).toBe(row);
  });
  it('ignores changes of other rows and changes without a status or version', () => {
    const row = host('h1', 'known', 4);
    expect(withPushedStatus(row, change('h2', 'insufficient', 9))).toBe(row);
    expect(withPushedStatus(row, { ...change('h1', 'insufficient', 9), status: undefined })).toBe(row);
    expect(withPushedStatus(row, { ...change('h1', 'insufficient', 9), resource_version: undefined })).toBe(row);
  });
});

describe('withPushedStatuses', () => {
  it('applies the newest change per row whatever the order they came in', () => {
    const rows = [host('h1', 'known', 4), host('h2', 'known', 4)];
    const shown = withPushedStatuses(rows, [change('h1', 'known', 7), change('h1', 'insufficient', 6), change('h2', 'disconnected', 5)]);
    expect(shown.map((r) => r.status)).toEqual(['known', 'disconnected']);
    expect(shown[0].resource_version).toBe(7);
  });
});

describe('newerOf', () => {
  it('takes a read that is as new or newer, keeps a pushed status newer than the read', () => {
    expect(newerOf(host('h1', 'insufficient', 5), host('h1', 'known', 5)).status).toBe('known');
    expect(newerOf(host('h1', 'insufficient', 6), host('h1', 'known', 5)).status).toBe('insufficient');
    expect(newerOf(undefined, host('h1', 'known', 5)).status).toBe('known');
  });
  it('marks the rest of a row as older than its pushed status until a read as new comes', () => {
    const pushed = withPushedStatus(host('h1', 'insufficient', 4), change('h1', 'known', 6));
    expect(statusAhead(newerOf(pushed, host('h1', 'insufficient', 5)))).toBe(true);
    expect(statusAhead(newerOf(pushed, host('h1', 'known', 6)))).toBe(false);
  });
});
