import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DraftChecker, type Verdict } from './draftCheck';

// A check whose answers the test releases one by one.
function controlledCheck() {
  const asked: { draft: string; answer: (reason: string) => void; fail: () => void }[] = [];
  const check = (draft: string) =>
    new Promise<string>((resolve, reject) => asked.push({ draft, answer: resolve, fail: () => reject(new Error('down')) }));
  return { asked, check };
}

describe('DraftChecker', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits for a pause in typing and checks only the newest draft', async () => {
    const { asked, check } = controlledCheck();
    const verdicts: Verdict[] = [];
    const checker = new DraftChecker(check, (v) => verdicts.push(v), 300);
    checker.submit('a', 'a');
    vi.advanceTimersByTime(200);
    checker.submit('ab', 'ab');
    vi.advanceTimersByTime(299);
    expect(asked).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(asked.map((a) => a.draft)).toEqual(['ab']);
    asked[0].answer('bad');
    await vi.runAllTimersAsync();
    expect(verdicts).toEqual([{ key: 'ab', reason: 'bad', failed: false }]);
  });

  it('keeps one request in flight and drops the answer about a draft that changed meanwhile', async () => {
    const { asked, check } = controlledCheck();
    const verdicts: Verdict[] = [];
    const checker = new DraftChecker(check, (v) => verdicts.push(v), 300);
    checker.submit('1', '1');
    vi.advanceTimersByTime(300);
    checker.submit('2', '2');
    vi.advanceTimersByTime(300);
    checker.submit('3', '3');
    vi.advanceTimersByTime(300);
    expect(asked.map((a) => a.draft)).toEqual(['1']);
    asked[0].answer('stale');
    await vi.runAllTimersAsync();
    expect(verdicts).toEqual([]);
    expect(asked.map((a) => a.draft)).toEqual(['1', '3']);
    asked[1].answer('');
    await vi.runAllTimersAsync();
    expect(verdicts).toEqual([{ key: '3', reason: '', failed: false }]);
  });

  it('says when the API could not judge a draft, and says nothing once stopped', async () => {
    const { asked, check } = controlledCheck();
    const verdicts: Verdict[] = [];
    const checker = new DraftChecker(check, (v) => verdicts.push(v), 300);
    checker.submit('x', 'x');
    vi.advanceTimersByTime(300);
    asked[0].fail();
    await vi.runAllTimersAsync();
    expect(verdicts).toEqual([{ key: 'x', reason: '', failed: true }]);
    checker.submit('y', 'y');
    vi.advanceTimersByTime(300);
    checker.stop();
    asked[1].answer('late');
    await vi.runAllTimersAsync();
    expect(verdicts).toHaveLength(1);
  });
});
