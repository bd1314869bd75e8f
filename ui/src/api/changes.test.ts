import { describe, expect, it } from 'vitest';
import { parseEventStream } from './changes';

describe('parseEventStream', () => {
  it('reads what the gateway writes: retry, then id/event/data blocks', () => {
    const text =
      'retry: 0\n\n' +
      'id: b00t-4\nevent: change\ndata: {"kind":"host","id":"h1","change":"updated","status":"known"}\n\n' +
      'id: b00t-5\nevent: position\ndata: {}\n\n';
    const { events, retry } = parseEventStream(text);
    expect(retry).toBe(0);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ id: 'b00t-4', event: 'change', data: '{"kind":"host","id":"h1","change":"updated","status":"known"}' });
    expect(events[1].event).toBe('position');
    expect(events[1].id).toBe('b00t-5');
  });
  it('keeps a colon inside data and ignores comments and blank input', () => {
    const { events } = parseEventStream(': keep-alive\n\nevent: change\ndata: {"a":"x:y"}\n\n');
    expect(events).toEqual([{ event: 'change', data: '{"a":"x:y"}' }]);
    expect(parseEventStream('').events).toEqual([]);
  });
  it('reads a slow retry from a busy gateway', () => {
    expect(parseEventStream('retry: 5000\n\n').retry).toBe(5000);
  });
});
